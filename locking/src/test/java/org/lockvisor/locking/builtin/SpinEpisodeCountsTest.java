package org.lockvisor.locking.builtin;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockContext;
import org.lockvisor.locking.spi.LockFactory;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.locking.spi.LockStats.SpinEnd;
import org.lockvisor.locking.spi.LockStats;
import org.lockvisor.machine.CacheLines;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Vm;
import org.lockvisor.machine.config.HypervisorConfig;
import org.lockvisor.machine.config.KernelConfig;
import org.lockvisor.scheduler.builtin.RoundRobinScheduler;

/**
 * The convoy counters of issue 37 in constructed situations whose counts follow from the 4.8
 * code: an OSQ member spins until {@code osq_unlock} sets its {@code node->locked} (a hand-off),
 * or until {@code need_resched()} (kernel/locking/osq_lock.c {@code osq_lock}); an OSQ head spins
 * in {@code mutex_spin_on_owner} while {@code lock->owner == owner} (kernel/locking/mutex.c), so a
 * release ends its episode as an owner change. Each episode falls in one decade class.
 */
class SpinEpisodeCountsTest {
  private static final long US = 1_000;
  private static final long MS = 1_000_000;

  private final Simulation sim = new Simulation(1);
  private final Machine machine = new Machine(sim);
  private Vm vm;

  /** {@code vcpus} vCPUs pinned to {@code pin} (host CPU of each), round-robin host with 1 ms slices. */
  private KernelLock lock(LockFactory f, int hostCpus, int... pin) {
    machine.createHost("host", hostCpus, KernelConfig.zeroCost(4 * MS), new RoundRobinScheduler(MS));
    machine.setCacheLines(CacheLines.flat(hostCpus, Rig.COSTS));
    vm = machine.createVm("vm0", pin.length, KernelConfig.zeroCost(10 * MS), new RoundRobinScheduler(MS),
        HypervisorConfig.zeroCost(), pin);
    return LockContext.builder(vm.guest(), Rig.COSTS).name("convoy_lock").options(Map.of()).create(f);
  }

  private void holder(KernelLock lock, LockMode mode, String name, int cpu, long atNs, long holdNs) {
    Program p = Program.named(name).op(lock.lock(mode)).work(holdNs, "critical_section").op(lock.unlock(mode))
        .build();
    if (atNs == 0) {
      vm.guest().spawn(name, p, cpu);
    } else {
      at( atNs, () -> vm.guest().spawn(name, p, cpu));
    }
  }

  private void at(long atNs, Runnable action) {
    sim.scheduleAt(atNs, (k, a) -> action.run(), 0, 0);
  }

  private static long total(LockStats s, SpinEnd end) {
    long n = 0;
    for (int b = 0; b < LockStats.SPIN_BUCKETS; b++) {
      n += s.spinEpisodes(end, b);
    }
    return n;
  }

  @Test
  void spinBucket_isTheDecadeFromOneMicrosecond() {
    assertThat(LockStats.spinBucket(999)).isZero();
    assertThat(LockStats.spinBucket(1_000)).isEqualTo(1);
    assertThat(LockStats.spinBucket(99_999)).isEqualTo(2);
    assertThat(LockStats.spinBucket(100_000)).isEqualTo(3);
    assertThat(LockStats.spinBucket(9_999_999)).isEqualTo(4);
    assertThat(LockStats.spinBucket(10 * MS)).isEqualTo(5);
    assertThat(LockStats.spinBucket(10_000 * MS)).isEqualTo(5);
  }

  @Test
  void osqMemberHandedTheQueue_oneHandoffEpisodeOfItsWait() {
    KernelLock lock = lock(new OsqLockFactory(), 2, 0, 1);
    holder(lock, LockMode.PLAIN, "A", 0, 0, 50 * US);
    holder(lock, LockMode.PLAIN, "B", 1, 10 * US, 5 * US);
    sim.runUntil(10 * MS);

    LockStats s = lock.stats();
    // B queued at 10 us behind A, handed node->locked at A's release, 50 us: a 10-100 us episode
    assertThat(s.spinEpisodes(SpinEnd.HANDOFF, 2)).isEqualTo(1);
    assertThat(total(s, SpinEnd.HANDOFF)).isEqualTo(1);
    assertThat(s.spinEpisodeNs(SpinEnd.HANDOFF)).isBetween(39 * US, 41 * US);
    assertThat(total(s, SpinEnd.NEED_RESCHED) + total(s, SpinEnd.OWNER_CHANGE) + total(s, SpinEnd.OTHER)).isZero();
    assertThat(s.osqHandoffs()).isEqualTo(1);
    assertThat(s.osqHandoffsToUndispatched()).isZero();
  }

  @Test
  void osqMemberWithNeedResched_leavesWithANeedReschedEpisode_noHandoff() {
    KernelLock lock = lock(new OsqLockFactory(), 2, 0, 1);
    holder(lock, LockMode.PLAIN, "A", 0, 0, 5 * MS);
    holder(lock, LockMode.PLAIN, "B", 1, 10 * US, 5 * US);
    at( MS, () -> vm.guest().cpu(1).reschedule());
    sim.runUntil(20 * MS);

    LockStats s = lock.stats();
    // queued at 10 us, need_resched at 1 ms: one 0.1-1 ms episode; B then sleeps and takes the
    // empty OSQ after A's release, so nobody is handed the queue
    assertThat(s.spinEpisodes(SpinEnd.NEED_RESCHED, 3)).isEqualTo(1);
    assertThat(total(s, SpinEnd.NEED_RESCHED)).isEqualTo(1);
    assertThat(total(s, SpinEnd.HANDOFF)).isZero();
    assertThat(s.osqHandoffs()).isZero();
    assertThat(s.acquisitions()).isEqualTo(2);
  }

  @Test
  void mutexHeadSpinningOnTheOwner_releaseEndsItsEpisodeAsAnOwnerChange() {
    KernelLock lock = lock(new CountMutexFactory(), 2, 0, 1);
    holder(lock, LockMode.SLEEPING, "A", 0, 0, 50 * US);
    holder(lock, LockMode.SLEEPING, "B", 1, 10 * US, 5 * US);
    sim.runUntil(10 * MS);

    LockStats s = lock.stats();
    // B is the OSQ head at once (empty queue: no OSQ episode) and spins on A until its release
    assertThat(s.spinEpisodes(SpinEnd.OWNER_CHANGE, 2)).isEqualTo(1);
    assertThat(total(s, SpinEnd.OWNER_CHANGE)).isEqualTo(1);
    assertThat(total(s, SpinEnd.HANDOFF) + total(s, SpinEnd.NEED_RESCHED) + total(s, SpinEnd.OTHER)).isZero();
    assertThat(s.osqHandoffs()).isZero();
  }

  @Test
  void osqHandoffToAVcpuTheHostHasPreempted_countsAsUndispatched_andTheEpisodeLastsUntilItRunsAgain() {
    // vCPUs 1 and 2 share host CPU 1 (1 ms round-robin slices); B queues on vCPU 1 at 10 us; a
    // guest hog on vCPU 2 from 20 us makes the host alternate them; A releases at 1.5 ms
    KernelLock lock = lock(new OsqLockFactory(), 2, 0, 1, 1);
    holder(lock, LockMode.PLAIN, "A", 0, 0, 1_500 * US);
    holder(lock, LockMode.PLAIN, "B", 1, 10 * US, 5 * US);
    at( 20 * US, () -> vm.guest().spawn("hog", Program.named("hog")
        .loopWhile(t -> true, Program.named("hog_loop").userWork(MS, "hog").build()).build(), 2));
    long[] releasedWhileOff = {0};
    at( 1_500 * US, () -> releasedWhileOff[0] = vm.vcpus().get(1).onCpu() ? 0 : 1);
    sim.runUntil(20 * MS);

    LockStats s = lock.stats();
    assertThat(releasedWhileOff[0]).as("vCPU 1 is off host CPU 1 at A's release").isEqualTo(1);
    assertThat(s.osqHandoffs()).isEqualTo(1);
    assertThat(s.osqHandoffsToUndispatched()).isEqualTo(1);
    // B's wait runs past the release until vCPU 1 is dispatched again: longer than 1.49 ms
    assertThat(total(s, SpinEnd.HANDOFF)).isEqualTo(1);
    assertThat(s.spinEpisodeNs(SpinEnd.HANDOFF)).isGreaterThan(1_490 * US);
  }
}

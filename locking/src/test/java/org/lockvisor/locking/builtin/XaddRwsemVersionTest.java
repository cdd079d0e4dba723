package org.lockvisor.locking.builtin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.VcpuPreemptedHook;

/**
 * The 4.7 and 4.8 forms of kernel/locking/rwsem-xadd.c, as the source has them. 4.7 calls {@code
 * rwsem_spin_on_owner(sem, owner)} only with an owner set; with readers active and no owner its
 * {@code rwsem_optimistic_spin} loop goes round ({@code try_write_lock_unqueued}, {@code
 * cpu_relax}) until the readers leave — spin time charged to {@code rwsem_down_write_failed}.
 * 4.8 marks the owner field {@code RWSEM_READER_OWNED} when a reader takes the lock and only a
 * writer clears it, so a writer never spins on readers, not even after they left. With writers
 * only the two are the same code path. Both versions' {@code rwsem_wake} skips the wakeup when a
 * spinner is queued and the wait_lock trylock fails ({@code rwsem_has_spinner}).
 */
class XaddRwsemVersionTest {
  private record Mixed(Rig rig, XaddRwsem lock, boolean finished) {}

  /** {@code writers} writers and {@code readers} readers on one rwsem, 8 vCPUs on {@code pcpus}. */
  private static Mixed mixed(String version, int writers, int readers, int pcpus, boolean spin) {
    Rig rig = new Rig(7, pcpus, 8, 0, VcpuPreemptedHook.NEVER);
    XaddRwsem lock = (XaddRwsem) rig.lock(new XaddRwsemFactory(), false,
        Map.of("kernel-version", version, "optimistic-spin", Boolean.toString(spin)));
    int[] left = new int[rig.machine.tasks().size() + writers + readers + 16];
    int[] finished = {0};
    int total = writers + readers;
    for (int i = 0; i < total; i++) {
      LockMode mode = i < writers ? LockMode.WRITE : LockMode.READ;
      // readers come often and hold longer (an rmap walk), writers briefly (an i_mmap insert)
      long cs = mode == LockMode.READ ? 10_000 : 2_000;
      long think = mode == LockMode.READ ? 5_000 : 20_000;
      Program body = Program.named("iteration")
          .op(lock.lock(mode))
          .work(cs, "critical_section")
          .op(lock.unlock(mode))
          .run(t -> left[t.id()]--)
          .userWork(think, "think")
          .build();
      Program main = Program.named("task")
          .loopWhile(t -> left[t.id()] > 0, body)
          .run(t -> {
            if (++finished[0] == total) {
              rig.sim.stop();
            }
          })
          .build();
      var t = rig.vm.guest().spawn((mode == LockMode.READ ? "reader/" : "writer/") + i, main);
      left[t.id()] = 200;
    }
    rig.sim.runUntil(60_000_000_000L);
    System.out.printf("rwsem %s w=%d r=%d pcpus=%d spin=%s: %s readerSpin=%.3fms wakeLeft=%d ownerSpins=%d%n", version,
        writers, readers, pcpus, spin, Rig.describe(lock, rig), rig.symbolTime("rwsem_down_write_failed") / 1e6,
        lock.stats().wakeupsLeftToSpinner(), lock.stats().ownerSpins());
    return new Mixed(rig, lock, finished[0] == total);
  }

  @Test
  void kernelVersion_default_is48AndUnknownValueRefused() {
    Rig rig = new Rig(1, 1, 1, 0, VcpuPreemptedHook.NEVER);
    XaddRwsem lock = (XaddRwsem) rig.lock(new XaddRwsemFactory(), false, Map.of());
    assertThat(lock.kernelVersion()).isEqualTo(XaddRwsem.KernelVersion.V4_8);
    assertThatThrownBy(() -> rig.lock(new XaddRwsemFactory(), false, Map.of("kernel-version", "4.9")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("[4.9]");
  }

  @Test
  void writersOnly_47And48_sameRun() {
    Mixed v47 = mixed("4.7", 8, 0, 4, true);
    Mixed v48 = mixed("4.8", 8, 0, 4, true);
    assertThat(v47.finished()).isTrue();
    assertThat(v48.finished()).isTrue();
    assertThat(v47.lock().stats().spinAcquisitions()).isPositive();
    assertThat(v47.rig().sim.fingerprint()).isEqualTo(v48.rig().sim.fingerprint());
  }

  @Test
  void readersAndWriters_47_headSpinsOnReadersIn48NotAtAll() {
    Mixed v47 = mixed("4.7", 6, 2, 3, true);
    Mixed v48 = mixed("4.8", 6, 2, 3, true);
    assertThat(v47.finished()).isTrue();
    assertThat(v48.finished()).isTrue();
    // 4.7: the rwsem_optimistic_spin loop on an owner-less, reader-held rwsem
    assertThat(v47.rig().symbolTime("rwsem_down_write_failed")).isPositive();
    // 4.8: a reader-owned mark stops the spin at once: no such loop
    assertThat(v48.rig().symbolTime("rwsem_down_write_failed")).isZero();
  }

  @Test
  void readersAndWriters_48_staleReaderMarkSendsWritersToSleepMoreOften() {
    Mixed v47 = mixed("4.7", 4, 4, 8, true);
    Mixed v48 = mixed("4.8", 4, 4, 8, true);
    // after the readers left the mark stays until a writer takes the lock: 4.8 writers that find
    // the lock free with waiters queued go to the wait list where 4.7 ones spin and steal it
    double steal47 = (double) v47.lock().stats().spinAcquisitions() / v47.lock().stats().contentions();
    double steal48 = (double) v48.lock().stats().spinAcquisitions() / v48.lock().stats().contentions();
    assertThat(steal48).isLessThan(steal47);
  }

  @Test
  void readerTakesLock_48_marksOwnerUntilAWriterTakesIt() {
    Rig rig = new Rig(1, 2, 2, 0, VcpuPreemptedHook.NEVER);
    XaddRwsem lock = (XaddRwsem) rig.lock(new XaddRwsemFactory(), false, Map.of());
    boolean[] seen = new boolean[3];
    Program p = Program.named("seq")
        .op(lock.lock(LockMode.READ))
        .op(lock.unlock(LockMode.READ))
        .run(t -> seen[0] = lock.readerOwned()) // readers do not clear the mark
        .op(lock.lock(LockMode.WRITE))
        .run(t -> seen[1] = lock.readerOwned()) // rwsem_set_owner
        .op(lock.unlock(LockMode.WRITE))
        .run(t -> seen[2] = lock.readerOwned())
        .build();
    rig.vm.guest().spawn("seq", p);
    rig.sim.runUntil(1_000_000_000L);
    assertThat(seen).containsExactly(true, false, false);
  }

  @Test
  void readerTakesLock_47_hasNoReaderMark() {
    Rig rig = new Rig(1, 2, 2, 0, VcpuPreemptedHook.NEVER);
    XaddRwsem lock = (XaddRwsem) rig.lock(new XaddRwsemFactory(), false, Map.of("kernel-version", "4.7"));
    boolean[] seen = new boolean[1];
    Program p = Program.named("seq")
        .op(lock.lock(LockMode.READ))
        .op(lock.unlock(LockMode.READ))
        .run(t -> seen[0] = lock.readerOwned())
        .build();
    rig.vm.guest().spawn("seq", p);
    rig.sim.runUntil(1_000_000_000L);
    assertThat(seen[0]).isFalse();
  }

  /**
   * A holds the write lock for 50 µs; B spins on it at the head of the OSQ; C queues as a reader;
   * D holds wait_lock from 10 µs to 110 µs. A's up_write finds waiters and no holder, so it calls
   * rwsem_wake while wait_lock is busy. Every task runs on its own vCPU and processor.
   */
  private static XaddRwsem wakeScenario(boolean optimisticSpin, boolean[] allDone) {
    Rig rig = new Rig(1, 4, 4, 0, VcpuPreemptedHook.NEVER);
    XaddRwsem lock = (XaddRwsem) rig.lock(new XaddRwsemFactory(), false,
        Map.of("optimistic-spin", Boolean.toString(optimisticSpin)));
    int[] done = {0};
    Program a = Program.named("a").op(lock.lock(LockMode.WRITE)).work(50_000, "cs").op(lock.unlock(LockMode.WRITE))
        .run(t -> done[0]++).build();
    Program b = Program.named("b").work(1_000, "before").op(lock.lock(LockMode.WRITE)).work(200_000, "cs")
        .op(lock.unlock(LockMode.WRITE)).run(t -> done[0]++).build();
    Program c = Program.named("c").work(2_000, "before").op(lock.lock(LockMode.READ)).work(1_000, "cs")
        .op(lock.unlock(LockMode.READ)).run(t -> done[0]++).build();
    Program d = Program.named("d").work(10_000, "before").op(lock.waitLock().lock(LockMode.IRQ)).work(100_000, "held")
        .op(lock.waitLock().unlock(LockMode.IRQ)).run(t -> done[0]++).build();
    rig.vm.guest().spawn("a", a, 0);
    rig.vm.guest().spawn("b", b, 1);
    rig.vm.guest().spawn("c", c, 2);
    rig.vm.guest().spawn("d", d, 3);
    rig.sim.runUntil(10_000_000L);
    allDone[0] = done[0] == 4;
    return lock;
  }

  @Test
  void rwsemWake_spinnerQueuedAndWaitLockBusy_wakeupLeftToSpinnerWithoutLostWakeups() {
    boolean[] allDone = {false};
    XaddRwsem lock = wakeScenario(true, allDone);
    assertThat(lock.stats().wakeupsLeftToSpinner()).isEqualTo(1);
    assertThat(allDone[0]).as("the spinner took the lock and its up_write woke the reader").isTrue();
  }

  @Test
  void rwsemWake_noOptimisticSpin_waitsForWaitLockAndWakes() {
    boolean[] allDone = {false};
    XaddRwsem lock = wakeScenario(false, allDone);
    assertThat(lock.stats().wakeupsLeftToSpinner()).isZero();
    assertThat(lock.stats().ownerSpins()).isZero();
    assertThat(allDone[0]).isTrue();
  }

  @Test
  void ownerSpins_writersContend_countedWithTheirTime() {
    Mixed m = mixed("4.8", 8, 0, 8, true);
    KernelLock l = m.lock();
    assertThat(l.stats().ownerSpins()).isPositive();
    assertThat(l.stats().ownerSpinNs()).isPositive();
  }
}

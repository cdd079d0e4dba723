package org.lockvisor.locking.builtin;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockFactory;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.machine.VcpuPreemptedHook;

/**
 * {@code VCPU_PREEMPTED_CHECK} is charged where the kernel reads {@code vcpu_is_preempted}: in
 * 4.10's kernel/locking/mutex.c once in {@code mutex_can_spin_on_owner} (the owner is on its CPU)
 * and once per iteration of {@code mutex_spin_on_owner}'s loop, whose iteration is the read plus
 * one {@code cpu_relax()}; in osq_lock.c once per iteration of the wait for {@code node->locked}.
 * The number of reads is derived from that loop — a spin of {@code T} ns on a loop of period
 * {@code P = PAUSE + c} starts {@code ceil(T / P)} reads and spends {@code (T / P) * c + min(T % P,
 * c)} ns in them — not taken from the run. Without the check nothing is read or charged and the
 * run is the same as with an unpriced check.
 */
class VcpuPreemptedCheckCostTest {
  private static final long CHECK_NS = 3;
  private static final String CHECK_FUNCTION = "__raw_callee_save___kvm_vcpu_is_preempted";
  private static final long PERIOD = Rig.COSTS.pauseNs() + CHECK_NS;

  private static Rig rig(int vcpus, boolean priced) {
    Rig rig = new Rig(5, vcpus, vcpus, 0, VcpuPreemptedHook.INVOLUNTARY);
    if (priced) {
      rig.vm.guest().vcpuPreemptedReads().setCheckCost(CHECK_NS, CHECK_FUNCTION);
    }
    return rig;
  }

  /** Reads a loop of period P starts in T ns of spinning. */
  private static long reads(long spunNs) {
    return (spunNs + PERIOD - 1) / PERIOD;
  }

  /** CPU time those reads take. */
  private static long readTime(long spunNs) {
    return (spunNs / PERIOD) * CHECK_NS + Math.min(spunNs % PERIOD, CHECK_NS);
  }

  @Test
  void mutexOwner_checkOnOwnerRunning_chargedOneReadPerLoopIterationPlusCanSpin() {
    Rig rig = rig(2, true);
    KernelLock lock = rig.lock(new OwnerMutexFactory(), true, Map.of());
    // two tasks on two running vCPUs: one holds for 50 us, the other spins on it (nobody is preempted)
    rig.hammer(lock, LockMode.SLEEPING, 2, 1, 50_000, 0);
    assertThat(rig.allFinished()).isTrue();

    long inLoop = rig.symbolTime("mutex_spin_on_owner");
    long inReads = rig.symbolTime(CHECK_FUNCTION);
    // the loop's reads sit under the spin symbol; the can-spin read is one more of CHECK_NS
    long spun = inLoop + (inReads - CHECK_NS);
    assertThat(spun).as("the waiter spun on the owner for most of the hold").isGreaterThan(40_000);
    long loopReads = reads(spun);
    assertThat(rig.vm.guest().vcpuPreemptedReads().checks()).isEqualTo(loopReads + 1);
    assertThat(inReads).isEqualTo(readTime(spun) + CHECK_NS);
    // every full iteration is a read and a cpu_relax(): the reads are c / (PAUSE + c) of the spin
    assertThat((double) inReads / (inReads + inLoop)).isCloseTo((double) CHECK_NS / PERIOD,
        org.assertj.core.data.Offset.offset(0.01));
    assertThat(rig.vm.guest().vcpuPreemptedReads().checkTimeNs()).isEqualTo(inReads);
  }

  @Test
  void mutexOwner_checkOff_nothingReadAndRunUnchangedByTheCost() {
    Rig priced = rig(2, true);
    KernelLock a = priced.lock(new OwnerMutexFactory(), false, Map.of());
    priced.hammer(a, LockMode.SLEEPING, 2, 1, 50_000, 0);
    Rig unpriced = rig(2, false);
    KernelLock b = unpriced.lock(new OwnerMutexFactory(), false, Map.of());
    unpriced.hammer(b, LockMode.SLEEPING, 2, 1, 50_000, 0);

    assertThat(priced.vm.guest().vcpuPreemptedReads().checks()).isZero();
    assertThat(priced.symbolTime(CHECK_FUNCTION)).isZero();
    assertThat(priced.finishedAt).isEqualTo(unpriced.finishedAt);
    assertThat(priced.symbolTime("mutex_spin_on_owner")).isEqualTo(unpriced.symbolTime("mutex_spin_on_owner"))
        .isGreaterThan(40_000);
  }

  @Test
  void mutexOwner_checkOn_canSpinReadDelaysTheSpinByOneRead() {
    Rig on = rig(2, true);
    KernelLock a = on.lock(new OwnerMutexFactory(), true, Map.of());
    on.hammer(a, LockMode.SLEEPING, 2, 1, 50_000, 0);
    Rig off = rig(2, true);
    KernelLock b = off.lock(new OwnerMutexFactory(), false, Map.of());
    off.hammer(b, LockMode.SLEEPING, 2, 1, 50_000, 0);
    // the hand-off is an event: the loop's reads make it slower, not longer; the can-spin read
    // before it is time the waiter did not spin
    long spunOn = on.symbolTime("mutex_spin_on_owner") + on.symbolTime(CHECK_FUNCTION) - CHECK_NS;
    assertThat(spunOn).isEqualTo(off.symbolTime("mutex_spin_on_owner") - CHECK_NS);
  }

  @Test
  void osq_checkOnThirdWaiterQueued_chargedOneReadPerOsqIteration() {
    Rig rig = rig(3, true);
    KernelLock lock = rig.lock(new OwnerMutexFactory(), true, Map.of());
    rig.hammer(lock, LockMode.SLEEPING, 3, 1, 50_000, 0);
    assertThat(rig.allFinished()).isTrue();
    long inOsq = rig.symbolTime("osq_lock");
    assertThat(inOsq).as("one waiter queued in the OSQ behind the owner spinner").isGreaterThan(10_000);
    // reads under osq_lock: the OSQ loop's; under mutex_spin_on_owner: the owner loop's
    long readsUnderOsq = readTimeUnder(rig, "osq_lock");
    long readsUnderOwner = readTimeUnder(rig, "mutex_spin_on_owner");
    assertThat(readsUnderOsq).isGreaterThan(0);
    assertThat((double) readsUnderOsq / (readsUnderOsq + inOsq)).isCloseTo((double) CHECK_NS / PERIOD,
        org.assertj.core.data.Offset.offset(0.01));
    assertThat(rig.vm.guest().vcpuPreemptedReads().checkTimeNs())
        .isGreaterThanOrEqualTo(readsUnderOsq + readsUnderOwner);
  }

  /** CPU time charged to the check function directly under {@code spinSymbol}. */
  private static long readTimeUnder(Rig rig, String spinSymbol) {
    rig.machine.syncAccounting();
    long[] sum = {0};
    var symbols = rig.machine.symbols();
    rig.machine.account().forEach((cpu, thread, stack, ns) -> {
      if (symbols.name(symbols.leaf(stack)).equals(CHECK_FUNCTION)
          && symbols.name(symbols.leaf(symbols.parent(stack))).equals(spinSymbol)) {
        sum[0] += ns;
      }
    });
    return sum[0];
  }
}

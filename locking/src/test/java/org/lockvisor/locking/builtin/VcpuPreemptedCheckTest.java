package org.lockvisor.locking.builtin;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockFactory;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.machine.VcpuPreemptedHook;

/**
 * The R3 mechanism: in a 2× overcommitted guest, optimistic spinners of sleeping locks keep
 * spinning in {@code osq_lock} and {@code *_spin_on_owner} while the owner's (or the OSQ
 * predecessor's) vCPU is preempted — the guest still sees the owner on CPU. With the
 * vcpu_is_preempted check they do not start or they bail out at once and sleep, so the spin
 * time drops and sleeps rise. Without overcommit the check changes little.
 */
class VcpuPreemptedCheckTest {
  private static final int TASKS = 16;
  private static final int ITERATIONS = 300;

  private record Run(Rig rig, KernelLock lock, long spinNs) {}

  private static Run run(LockFactory f, LockMode mode, boolean check, VcpuPreemptedHook hook, int pcpus) {
    Rig rig = new Rig(3, pcpus, 8, 0, hook);
    KernelLock lock = rig.lock(f, check, Map.of());
    rig.hammer(lock, mode, TASKS, ITERATIONS, 2_000, 5_000);
    assertThat(rig.allFinished()).isTrue();
    long spin = rig.symbolTime("osq_lock") + rig.symbolTime("mutex_spin_on_owner")
        + rig.symbolTime("rwsem_spin_on_owner");
    System.out.printf("%s check=%s hook=%s pcpus=%d: osq_lock=%.2fms spin_on_owner=%.2fms %s%n", f.name(), check,
        hook == VcpuPreemptedHook.NEVER ? "NEVER" : "set", pcpus, rig.symbolTime("osq_lock") / 1e6,
        (rig.symbolTime("mutex_spin_on_owner") + rig.symbolTime("rwsem_spin_on_owner")) / 1e6,
        Rig.describe(lock, rig));
    return new Run(rig, lock, spin);
  }

  @Test
  void mutexCount_checkOnInvoluntaryHook_spinTimeDropsAndSpinnersBail() {
    Run off = run(new CountMutexFactory(), LockMode.SLEEPING, false, VcpuPreemptedHook.INVOLUNTARY, 4);
    Run on = run(new CountMutexFactory(), LockMode.SLEEPING, true, VcpuPreemptedHook.INVOLUNTARY, 4);
    assertThat(on.spinNs()).isLessThan(off.spinNs() / 2);
    // spinners no longer wait out the preemption: they go to sleep (mutex_can_spin_on_owner fails)
    assertThat(on.lock().stats().sleeps()).isGreaterThan(off.lock().stats().sleeps());
    assertThat(on.lock().stats().holderPreemptedWaitNs()).isLessThan(off.lock().stats().holderPreemptedWaitNs());
  }

  @Test
  void mutexCount_checkOnNotDispatchedHook_spinTimeDrops() {
    Run off = run(new CountMutexFactory(), LockMode.SLEEPING, false, VcpuPreemptedHook.NOT_DISPATCHED, 4);
    Run on = run(new CountMutexFactory(), LockMode.SLEEPING, true, VcpuPreemptedHook.NOT_DISPATCHED, 4);
    assertThat(on.spinNs()).isLessThan(off.spinNs() / 2);
  }

  @Test
  void mutexCount_checkOnButHookNever_sameAsCheckOff() {
    Run off = run(new CountMutexFactory(), LockMode.SLEEPING, false, VcpuPreemptedHook.NEVER, 4);
    Run on = run(new CountMutexFactory(), LockMode.SLEEPING, true, VcpuPreemptedHook.NEVER, 4);
    assertThat(on.spinNs()).isEqualTo(off.spinNs());
    assertThat(on.rig().sim.fingerprint()).isEqualTo(off.rig().sim.fingerprint());
  }

  @Test
  void mutexCount_notOvercommitted_spinnersAcquireByStealingAndRarelyBail() {
    Run on = run(new CountMutexFactory(), LockMode.SLEEPING, true, VcpuPreemptedHook.INVOLUNTARY, 8);
    assertThat(on.lock().stats().spinAcquisitions()).isPositive();
    assertThat(on.lock().stats().spinBailouts()).isLessThan(on.lock().stats().spinAcquisitions());
  }

  @Test
  void rwsemXadd_checkOnInvoluntaryHook_writerSpinTimeDrops() {
    Run off = run(new XaddRwsemFactory(), LockMode.WRITE, false, VcpuPreemptedHook.INVOLUNTARY, 4);
    Run on = run(new XaddRwsemFactory(), LockMode.WRITE, true, VcpuPreemptedHook.INVOLUNTARY, 4);
    assertThat(on.spinNs()).isLessThan(off.spinNs() / 2);
    assertThat(on.rig().symbolTime("osq_lock")).isLessThan(off.rig().symbolTime("osq_lock") / 10);
  }

  @Test
  void osq_checkOn_queuedSpinnersBailWhenPredecessorPreempted() {
    Run off = run(new OsqLockFactory(), LockMode.PLAIN, false, VcpuPreemptedHook.INVOLUNTARY, 4);
    Run on = run(new OsqLockFactory(), LockMode.PLAIN, true, VcpuPreemptedHook.INVOLUNTARY, 4);
    OptimisticSpinQueue osqOn = ((OsqLock) on.lock()).osq();
    OptimisticSpinQueue osqOff = ((OsqLock) off.lock()).osq();
    assertThat(osqOff.preemptedBailouts()).isZero();
    assertThat(osqOn.preemptedBailouts()).isPositive();
    assertThat(on.rig().symbolTime("osq_lock")).isLessThan(off.rig().symbolTime("osq_lock"));
  }
}

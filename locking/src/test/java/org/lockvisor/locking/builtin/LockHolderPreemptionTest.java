package org.lockvisor.locking.builtin;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.machine.VcpuPreemptedHook;

/**
 * Lock-holder preemption is measurable: a holder whose vCPU is preempted by the host keeps the
 * lock for the whole time its vCPU is off CPU; the lock counts such holds and their preempted
 * time, read from the holder vCPU's steal clock.
 */
class LockHolderPreemptionTest {
  private static final long US = 1_000;

  /** Four vCPUs on {@code physicalCpus}, each physical CPU shared with {@code hogsPerCpu} host hogs. */
  private Rig run(int physicalCpus, int hogsPerCpu, KernelLock[] lock) {
    Rig rig = new Rig(21, physicalCpus, 4, hogsPerCpu, VcpuPreemptedHook.INVOLUNTARY);
    lock[0] = rig.lock(new TasSpinLockFactory(), false, Map.of());
    rig.hammer(lock[0], LockMode.PLAIN, 4, 400, 20 * US, 30 * US);
    return rig;
  }

  @Test
  void overcommitted_holdsArePreempted_andThePreemptedTimeIsPartOfTheHoldTime() {
    KernelLock[] lock = new KernelLock[1];
    Rig rig = run(2, 1, lock);
    var s = lock[0].stats();

    assertThat(rig.allFinished()).isTrue();
    assertThat(s.preemptedHolds()).isPositive().isLessThanOrEqualTo(s.acquisitions());
    // a preempted hold lasts at least the host time slice it lost (the round-robin quantum is 1 ms)
    assertThat(s.holdPreemptedNs()).isGreaterThanOrEqualTo(s.preemptedHolds() * 500 * US);
    assertThat(s.holdPreemptedNs()).isLessThan(s.holdTotalNs());
    assertThat(s.holdMaxNs()).isGreaterThan(1_000 * US);
    // waiters behind a preempted holder were measured too
    assertThat(s.holderPreemptedWaitNs()).isPositive();
  }

  @Test
  void notOvercommitted_noHoldIsPreempted() {
    KernelLock[] lock = new KernelLock[1];
    Rig rig = run(4, 0, lock);
    var s = lock[0].stats();

    assertThat(rig.allFinished()).isTrue();
    assertThat(s.preemptedHolds()).isZero();
    assertThat(s.holdPreemptedNs()).isZero();
    assertThat(s.holdMaxNs()).isLessThan(100 * US);
  }
}

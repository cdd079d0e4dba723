package org.lockvisor.locking.builtin;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockFactory;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.machine.VcpuPreemptedHook;

/**
 * Sleeping locks: optimistic spinning lets tasks take a briefly held mutex without sleeping
 * (stealing from woken waiters); the owner-based mutex bounds that stealing by handing the lock
 * to a starving first waiter, which the count-based one cannot do.
 */
class SleepingLockTest {

  private static KernelLock run(LockFactory f, Map<String, String> options, long csNs) {
    Rig rig = new Rig(5, 8, 8, 0, VcpuPreemptedHook.NEVER);
    KernelLock lock = rig.lock(f, false, options);
    rig.hammer(lock, LockMode.SLEEPING, 16, 200, csNs, 3_000);
    assertThat(rig.allFinished()).isTrue();
    System.out.println(Rig.describe(lock, rig) + " handoffs=" + lock.stats().handoffs() + " options=" + options);
    return lock;
  }

  @Test
  void mutexCount_optimisticSpin_acquiresWithoutSleepingMoreOften() {
    KernelLock spin = run(new CountMutexFactory(), Map.of(), 2_000);
    KernelLock noSpin = run(new CountMutexFactory(), Map.of("optimistic-spin", "false"), 2_000);
    assertThat(spin.stats().spinAcquisitions()).isPositive();
    assertThat(noSpin.stats().spinAcquisitions()).isZero();
    assertThat(spin.stats().sleeps()).isLessThan(noSpin.stats().sleeps());
  }

  @Test
  void mutexOwner_heavyContention_handsOffToStarvingFirstWaiter() {
    KernelLock owner = run(new OwnerMutexFactory(), Map.of(), 20_000);
    assertThat(owner.stats().handoffs()).isPositive();
  }

  @Test
  void mutexCount_heavyContention_neverHandsOff() {
    KernelLock count = run(new CountMutexFactory(), Map.of(), 20_000);
    assertThat(count.stats().handoffs()).isZero();
    assertThat(count.stats().sleeps()).isPositive();
  }
}

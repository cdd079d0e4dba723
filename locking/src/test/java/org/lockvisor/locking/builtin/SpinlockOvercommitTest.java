package org.lockvisor.locking.builtin;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockFactory;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.machine.VcpuPreemptedHook;

/**
 * Why the spinlock variants exist, shown as positive/negative pairs on the same workload: with
 * 2× overcommit a FIFO ticket lock hands the lock to preempted waiters and its throughput
 * collapses next to the unfair test-and-set fallback; without overcommit it does not. PV locks
 * halt waiters that spin too long and kick them at unlock.
 */
class SpinlockOvercommitTest {
  private static final int TASKS = 16;
  private static final int ITERATIONS = 600;

  private static Rig run(LockFactory f, int pcpus, int vcpus, int hogs) {
    Rig rig = new Rig(7, pcpus, vcpus, hogs, VcpuPreemptedHook.NEVER);
    KernelLock lock = rig.lock(f, false, Map.of());
    rig.hammer(lock, LockMode.IRQSAVE, TASKS, ITERATIONS, 1_000, 2_000);
    assertThat(rig.allFinished()).isTrue();
    System.out.println(Rig.describe(lock, rig));
    rig.lockUnderTest = lock;
    return rig;
  }

  @Test
  void ticket_overcommitted_handsOffToPreemptedWaitersAndCollapsesVersusTas() {
    Rig ticket = run(new TicketSpinLockFactory(), 4, 8, 0);
    Rig tas = run(new TasSpinLockFactory(), 4, 8, 0);
    assertThat(ticket.lockUnderTest.stats().handoffsToPreemptedWaiter()).isPositive();
    assertThat(tas.lockUnderTest.stats().handoffsToPreemptedWaiter()).isZero();
    // throughput collapse: ticket needs several times longer for the same work
    assertThat(ticket.finishedAt).isGreaterThan(3 * tas.finishedAt);
  }

  @Test
  void ticket_notOvercommitted_noPreemptedHandoffsAndComparableToTas() {
    Rig ticket = run(new TicketSpinLockFactory(), 8, 8, 0);
    Rig tas = run(new TasSpinLockFactory(), 8, 8, 0);
    assertThat(ticket.lockUnderTest.stats().handoffsToPreemptedWaiter()).isZero();
    assertThat((double) ticket.finishedAt).isLessThan(1.5 * tas.finishedAt);
  }

  @Test
  void ticket_overcommitted_spinTimeChargedToLockApiSymbol() {
    Rig ticket = run(new TicketSpinLockFactory(), 4, 8, 0);
    assertThat(ticket.symbolTime("_raw_spin_lock_irqsave")).isGreaterThan(ticket.finishedAt);
    assertThat(ticket.symbolTime("native_queued_spin_lock_slowpath")).isZero();
  }

  @Test
  void qspinlock_overcommitted_contendedTimeInSlowpath() {
    Rig q = run(new QueuedSpinLockFactory(), 4, 8, 0);
    assertThat(q.symbolTime("native_queued_spin_lock_slowpath")).isPositive();
    assertThat(q.lockUnderTest.stats().handoffsToPreemptedWaiter()).isPositive();
  }

  @Test
  void pvQspinlock_overcommitted_haltsWaitersAndKicksThem() {
    Rig pv = run(new PvQueuedSpinLockFactory(), 4, 8, 0);
    Rig nat = run(new QueuedSpinLockFactory(), 4, 8, 0);
    assertThat(pv.lockUnderTest.stats().halts()).isPositive();
    assertThat(pv.lockUnderTest.stats().kicks()).isPositive();
    assertThat(nat.lockUnderTest.stats().halts()).isZero();
    assertThat(pv.symbolTime("__pv_queued_spin_lock_slowpath")).isPositive();
    assertThat(pv.finishedAt).isLessThan(nat.finishedAt);
  }

  @Test
  void pvQspinlock_notOvercommitted_rarelyHalts() {
    Rig pv = run(new PvQueuedSpinLockFactory(), 8, 8, 0);
    assertThat(pv.lockUnderTest.stats().halts()).isLessThan(pv.lockUnderTest.stats().contentions() / 20 + 1);
  }

  @Test
  void pvTicket_overcommitted_haltsWaitersAndKicksThem() {
    Rig pv = run(new PvTicketSpinLockFactory(), 4, 8, 0);
    Rig nat = run(new TicketSpinLockFactory(), 4, 8, 0);
    assertThat(pv.lockUnderTest.stats().halts()).isPositive();
    assertThat(pv.lockUnderTest.stats().kicks()).isPositive();
    assertThat(pv.finishedAt).isLessThan(nat.finishedAt);
  }

  @Test
  void ppcSplpar_sharedProcessor_confersToUndispatchedHolder() {
    Rig rig = new Rig(7, 4, 8, 0, VcpuPreemptedHook.NEVER);
    KernelLock lock = rig.lock(new SplparSpinLockFactory(), false, Map.of());
    rig.hammer(lock, LockMode.PLAIN, TASKS, ITERATIONS, 1_000, 2_000);
    System.out.println(Rig.describe(lock, rig));
    assertThat(lock.stats().confers()).isPositive();
    assertThat(rig.symbolTime("H_CONFER")).isPositive();
  }

  @Test
  void ppcSplpar_dedicatedProcessor_neverConfers() {
    Rig rig = new Rig(7, 4, 8, 0, VcpuPreemptedHook.NEVER);
    KernelLock lock = rig.lock(new SplparSpinLockFactory(), false, Map.of("shared-processor", "false"));
    rig.hammer(lock, LockMode.PLAIN, TASKS, ITERATIONS, 1_000, 2_000);
    assertThat(lock.stats().confers()).isZero();
    assertThat(rig.symbolTime("H_CONFER")).isZero();
  }
}

package org.lockvisor.locking.builtin;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockContext;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.locking.spi.LockStats;
import org.lockvisor.machine.CacheLines;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Vm;
import org.lockvisor.machine.config.HypervisorConfig;
import org.lockvisor.machine.config.KernelConfig;
import org.lockvisor.machine.config.TtwuQueueMode;
import org.lockvisor.scheduler.builtin.RoundRobinScheduler;

/**
 * Interrupt time inside a hold (issue 37, item 3): {@code down_write} leaves interrupts enabled,
 * so the decrementer's {@code timer_interrupt} (4.8 arch/powerpc/kernel/time.c: {@code
 * timer_interrupt} → {@code __timer_interrupt} → {@code irq_enter}, the clockevent handler →
 * {@code tick_sched_timer} → {@code update_process_times} → {@code scheduler_tick}) runs on the
 * holder's stack while it holds the rwsem: the hold lasts the critical section plus the handler,
 * and the lock counts one interrupted hold with the handler's time.
 */
class HoldInterruptTest {
  private static final long US = 1_000;
  private static final long MS = 1_000_000;
  /** The guest tick handler's cost in this constructed kernel. */
  private static final long TICK_COST = 5 * US;

  /** One hold of {@code csNs} by a task that takes the rwsem for write at {@code atNs}; guest tick every 1 ms. */
  private static LockStats hold(long atNs, long csNs) {
    Simulation sim = new Simulation(1);
    Machine machine = new Machine(sim);
    machine.createHost("host", 1, KernelConfig.zeroCost(4 * MS), new RoundRobinScheduler(MS));
    machine.setCacheLines(CacheLines.flat(1, Rig.COSTS));
    KernelConfig guest = new KernelConfig(MS, false, TtwuQueueMode.NEVER, 1 << 16, 0, 0, 0, 0, 0, 0, false, TICK_COST);
    Vm vm = machine.createVm("vm0", 1, guest, new RoundRobinScheduler(MS), HypervisorConfig.zeroCost(), 0);
    KernelLock lock = LockContext.builder(vm.guest(), Rig.COSTS).name("i_mmap_rwsem").options(Map.of())
        .create(new XaddRwsemFactory());
    // the task runs from 0, so its CPU's tick is armed one period later, at 1 ms
    Program p = Program.named("exit_mmap").work(atNs, "before").op(lock.lock(LockMode.WRITE)).work(csNs, "unlink_file_vma")
        .op(lock.unlock(LockMode.WRITE)).build();
    vm.guest().spawn("holder", p, 0);
    sim.runUntil(10 * MS);
    return lock.stats();
  }

  @Test
  void holdAcrossTheTick_lastsTheCriticalSectionPlusTheTimerInterrupt() {
    // taken 5 us before the tick at 1 ms: 10 us of critical section + the 5 us handler
    LockStats s = hold(995 * US, 10 * US);
    assertThat(s.acquisitions()).isEqualTo(1);
    assertThat(s.holdTotalNs()).isBetween(15 * US, 15 * US + 200);
    assertThat(s.interruptedHolds()).isEqualTo(1);
    assertThat(s.holdInterruptNs()).isEqualTo(TICK_COST);
  }

  @Test
  void holdBetweenTicks_lastsTheCriticalSectionOnly() {
    LockStats s = hold(100 * US, 10 * US);
    assertThat(s.holdTotalNs()).isBetween(10 * US, 10 * US + 200);
    assertThat(s.interruptedHolds()).isZero();
    assertThat(s.holdInterruptNs()).isZero();
  }
}

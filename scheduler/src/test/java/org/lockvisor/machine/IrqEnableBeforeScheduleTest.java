package org.lockvisor.machine;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.machine.config.KernelConfig;
import org.lockvisor.scheduler.builtin.RoundRobinScheduler;

/**
 * The sleep of 4.8's slow paths, {@code set_current_state(TASK_UNINTERRUPTIBLE);
 * raw_spin_unlock_irq(&lock->wait_lock); schedule();} (kernel/locking/rwsem-xadd.c {@code
 * rwsem_down_write_failed}, mutex.c {@code __mutex_lock_common}): an interrupt that arrived while
 * interrupts were off runs at {@code spin_unlock_irq}, before {@code schedule()}. When it is the
 * IPI whose handler wakes the sleeper ({@code scheduler_ipi} → {@code sched_ttwu_pending}), the
 * task finds itself TASK_RUNNING and {@code schedule()} does not sleep: no wakeup is lost.
 */
class IrqEnableBeforeScheduleTest {
  private static final long US = 1_000;

  @Test
  void interruptPendingAtIrqEnable_runsBeforeTheOpsSchedule_soItsWakeupIsNotLost() {
    Simulation sim = new Simulation(1);
    Machine machine = new Machine(sim);
    Kernel k = machine.createHost("k", 1, KernelConfig.zeroCost(4_000_000), new RoundRobinScheduler(1_000_000));
    long[] doneAt = {-1};
    Task[] a = new Task[1];
    Op unlockIrqAndSchedule = new Op() {
      @Override
      public int execute(Task t, int phase) {
        if (phase == 0) {
          t.setState(TaskState.UNINTERRUPTIBLE);
          t.irqEnable(); // raw_spin_unlock_irq: the pending IPI is taken here
          t.scheduleNow();
          return AGAIN;
        }
        return NEXT;
      }
    };
    a[0] = k.spawn("sleeper", Program.named("rwsem_down_write_failed")
        .op(Ops.irqDisable())
        .work(10 * US, "wait_lock_section")
        .op(unlockIrqAndSchedule)
        .run(t -> doneAt[0] = sim.now())
        .build(), 0);
    Program ipi = Program.interruptHandler("scheduler_ipi").op(Ops.wake(t -> a[0])).build();
    // the IPI arrives while interrupts are off: it stays pending until spin_unlock_irq
    sim.scheduleAt(5 * US, (x, y) -> k.cpu(0).raiseInterrupt(ipi), 0, 0);
    sim.runUntil(1_000_000);

    assertThat(doneAt[0]).isEqualTo(10 * US);
    assertThat(a[0].isDead()).isTrue();
  }
}

package org.lockvisor.devices.virtioblk;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Ops;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Task;
import org.lockvisor.machine.TaskState;
import org.lockvisor.machine.config.KernelConfig;
import org.lockvisor.machine.config.TtwuQueueMode;
import org.lockvisor.scheduler.builtin.RoundRobinScheduler;

/**
 * A completion handler that wakes a task (virtblk_done -> aio_complete) may interrupt a task that
 * is itself in the middle of a try_to_wake_up: both wakeups must land (the machine keeps the
 * interrupted op's scratch state across the handler).
 */
class WakeFromInterruptTest {

  @Test
  void wake_interruptedByHandlerThatWakes_bothWakeesRun() {
    Machine m = new Machine(new Simulation(1));
    Kernel k = m.createHost("host", 2, KernelConfig.zeroCost(4_000_000)
        .withTtwu(TtwuQueueMode.NEVER, 100, 500, 1000, 0, false), new RoundRobinScheduler(3_000_000));
    boolean[] ran = new boolean[2];
    Task[] sleepers = new Task[2];
    for (int i = 0; i < 2; i++) {
      int n = i;
      sleepers[i] = k.spawnSleeping("sleeper" + i, Program.named("s").run(t -> ran[n] = true).build(), 1);
    }
    Program handler = Program.interruptHandler("vring_interrupt").op(Ops.wake(t -> sleepers[1])).build();
    Task waker = k.spawn("waker", Program.named("w").op(Ops.wake(t -> sleepers[0])).build(), 0);
    // the waker's try_to_wake_up works from 0 to 100 ns (pi_lock) with IRQs enabled
    m.sim().schedule(50, (kind, arg) -> k.cpu(0).raiseInterrupt(handler), 0, 0);
    m.sim().runUntil(1_000_000);
    assertThat(ran).containsExactly(true, true);
    assertThat(sleepers[0].state()).isEqualTo(TaskState.DEAD);
    assertThat(waker.isDead()).isTrue();
  }
}

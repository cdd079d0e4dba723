package org.lockvisor.scheduler.builtin;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.machine.Cpu;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.MachineTrace;
import org.lockvisor.machine.Op;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Task;
import org.lockvisor.machine.config.KernelConfig;

/** yield_to_task_fair: the target becomes the next buddy and runs before the leftmost task. */
class CfsYieldToTest {
  private static final long US = 1_000;
  private static final long MS = 1_000_000;

  private final Simulation sim = new Simulation(5);
  private final Machine machine = new Machine(sim);
  private final List<String> order = new ArrayList<>();
  private final int[] yielded = {Integer.MIN_VALUE};

  private List<String> run(boolean yieldToC) {
    CfsScheduler cfs = CfsScheduler.withDefaults();
    Kernel host = machine.createHost("host", 1, KernelConfig.zeroCost(4 * MS), cfs);
    Task[] b = new Task[1];
    host.spawn("A", Program.named("A")
        .userWork(3 * MS, "a_work")
        .op(new Op() {
          @Override
          public int execute(Task t, int phase) {
            if (phase > 0 || !yieldToC) {
              return NEXT;
            }
            yielded[0] = host.yieldTo(t, b[0]);
            host.schedule(t.cpu(), true);
            return AGAIN;
          }
        })
        .userWork(10 * MS, "a_more")
        .build(), 0);
    machine.setTrace(new MachineTrace() {
      @Override
      public void onSwitch(Cpu cpu, Task prev, Task next) {
        if (next != cpu.idleTask() && (order.isEmpty() || !order.get(order.size() - 1).equals(next.name()))) {
          order.add(next.name());
        }
      }
    });
    // A runs alone first; B and C arrive while it works, each placed a virtual slice ahead of
    // min_vruntime (START_DEBIT): B at 50 us + 3 ms (two runnable), C at 1 ms + 2 ms (three).
    // After 3 ms of A, C is leftmost and B is 50 us behind it: within the wakeup granularity.
    sim.runUntil(50 * US);
    b[0] = host.spawn("B", Program.named("B").work(10 * MS, "b_work").build(), 0);
    sim.runUntil(MS);
    host.spawn("C", Program.named("C").work(10 * MS, "c_work").build(), 0);
    sim.runUntil(6 * MS);
    return order;
  }

  @Test
  void yieldTo_queuedTargetWithinGranularity_runsNextAheadOfTheLeftmost() {
    List<String> runs = run(true);

    assertThat(yielded[0]).isEqualTo(1);
    assertThat(runs).startsWith("A", "B");
  }

  @Test
  void withoutYield_theLeftmostRunsNext() {
    List<String> runs = run(false);

    // The tick at 4 ms ends A's 2 ms ideal slice; the leftmost, C, runs.
    assertThat(runs).startsWith("A", "C");
  }
}

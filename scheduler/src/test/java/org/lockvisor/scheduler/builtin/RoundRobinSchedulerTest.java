package org.lockvisor.scheduler.builtin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.lockvisor.scheduler.builtin.SchedTestSupport.MS;
import static org.lockvisor.scheduler.builtin.SchedTestSupport.US;
import static org.lockvisor.scheduler.builtin.SchedTestSupport.at;
import static org.lockvisor.scheduler.builtin.SchedTestSupport.cpuBound;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Task;
import org.lockvisor.machine.config.KernelConfig;
import org.lockvisor.scheduler.builtin.SchedTestSupport.Run;
import org.lockvisor.scheduler.builtin.SchedTestSupport.RunRecorder;

/**
 * Round robin: runnable tasks on a CPU take turns of exactly one quantum; a wakeup never
 * preempts, so a woken task waits for the running one's quantum to end.
 */
class RoundRobinSchedulerTest {
  private final Simulation sim = new Simulation(1);
  private final Machine machine = new Machine(sim);

  @Test
  void twoCpuBoundTasks_oneCpu_alternateInExactQuanta() {
    Kernel host = machine.createHost("host", 1, KernelConfig.zeroCost(MS),
        SchedulerContexts.create(new RoundRobinSchedulerFactory(), Map.of("quantum", "2500000")));
    Task a = host.spawn("a", cpuBound("a"), 0);
    Task b = host.spawn("b", cpuBound("b"), 0);
    RunRecorder rec = new RunRecorder(machine, host.cpu(0));
    machine.setTrace(rec);
    sim.runUntil(100 * MS);

    List<Run> runs = rec.runs();
    assertThat(runs).hasSize(40);
    for (int i = 0; i < runs.size(); i++) {
      assertThat(runs.get(i).length()).isEqualTo(2_500 * US);
      assertThat(runs.get(i).task()).isSameAs(i % 2 == 0 ? a : b);
    }
  }

  @Test
  void wokenTask_busyCpu_waitsForTheQuantumInsteadOfPreempting() {
    Kernel host = machine.createHost("host", 1, KernelConfig.zeroCost(MS), new RoundRobinScheduler(3 * MS));
    host.spawn("hog", cpuBound("hog"), 0);
    long[] started = {-1};
    Task sleeper = host.spawnSleeping("sleeper",
        Program.named("s").run(t -> started[0] = sim.now()).userWork(100 * US, "w").build(), 0);
    at(machine, 10_500 * US, () -> host.wakeUpNow(sleeper, null));
    sim.runUntil(30 * MS);

    // quanta end at 3, 6, 9, 12 ms (the hog alone re-arms its quantum): the wakee waits 1.5 ms,
    // where CFS would have preempted at once (CfsSchedulerTest)
    assertThat(started[0]).isEqualTo(12 * MS);
  }
}

package org.lockvisor.scheduler.builtin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.lockvisor.scheduler.builtin.SchedTestSupport.MS;
import static org.lockvisor.scheduler.builtin.SchedTestSupport.US;
import static org.lockvisor.scheduler.builtin.SchedTestSupport.at;
import static org.lockvisor.scheduler.builtin.SchedTestSupport.cpuBound;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Ops;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.config.KernelConfig;

/**
 * What CONFIG_HZ moves (issue 37): an optimistic spinner with preemption disabled (4.8
 * kernel/locking/osq_lock.c {@code osq_lock}: {@code while (!READ_ONCE(node->locked)) { if
 * (need_resched()) goto unqueue; ... }}) leaves only when need_resched is set, and with another
 * task runnable on its CPU that happens in {@code scheduler_tick} → {@code task_tick_fair} →
 * {@code check_preempt_tick} (4.8 kernel/sched/fair.c) at the first tick where {@code delta_exec >
 * ideal_runtime}. One CPU: {@code sysctl_sched_latency} 6 ms × (1 + ilog2(1)), two equal tasks →
 * a 3 ms slice; the spin therefore lasts until the first tick after 3 ms: 10 ms at HZ=100, 4 ms at
 * HZ=250, 4 ms at HZ=1000 (the tick at 3 ms sees delta_exec = 3 ms, not above the slice, and the
 * newer task's vruntime is ahead).
 */
class HzSpinnerTickTest {

  /** When the spin of a task that started spinning at 0 ends, on a kernel ticking at {@code hz}. */
  private static long spinEnd(int hz) {
    Simulation sim = new Simulation(1);
    Machine machine = new Machine(sim);
    Kernel k = machine.createHost("guest", 1, KernelConfig.zeroCost(1_000_000_000L / hz),
        SchedulerContexts.create(new CfsSchedulerFactory(), Map.of()));
    long[] end = {-1};
    k.spawn("spinner", Program.named("osq_spinner")
        .op(Ops.preemptDisable())
        .op(Ops.spinUntil("osq_lock", t -> t.cpu().needResched(), 0))
        .run(t -> end[0] = sim.now())
        .op(Ops.preemptEnable())
        .build(), 0);
    // a second task becomes runnable on the spinner's CPU once the spin is under way
    at(machine, US, () -> k.spawn("hog", cpuBound("hog"), 0));
    sim.runUntil(50 * MS);
    return end[0];
  }

  @Test
  void spinnerLeavesAtTheFirstTickPastItsSlice_soItsSpinFollowsHz() {
    assertThat(spinEnd(100)).isEqualTo(10 * MS);
    assertThat(spinEnd(250)).isEqualTo(4 * MS);
    assertThat(spinEnd(1000)).isGreaterThan(3 * MS).isLessThanOrEqualTo(4 * MS);
  }
}

package org.lockvisor.machine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.machine.config.HypervisorConfig;
import org.lockvisor.machine.config.KernelConfig;
import org.lockvisor.scheduler.builtin.CfsScheduler;

/**
 * Steal time: a vCPU thread that shares its physical CPU with a host hog is runnable but not
 * running about half the time; KVM publishes that run delay as steal time, and a guest with
 * steal-time accounting does not charge it to its tasks.
 */
class StealTimeTest {
  private static final long MS = 1_000_000;
  private static final long T = 1_000 * MS;

  private record Outcome(long steal, long vcpuOnCpu, long guestExec) {}

  private Outcome run(boolean accounting) {
    Simulation sim = new Simulation(11);
    Machine machine = new Machine(sim);
    Kernel host = machine.createHost("host", 1, KernelConfig.zeroCost(4 * MS), CfsScheduler.withDefaults());
    CfsScheduler guestCfs = CfsScheduler.withDefaults();
    Vm vm = machine.createVm("vm", 1, KernelConfig.zeroCost(4 * MS), guestCfs,
        HypervisorConfig.zeroCost(), 0);
    vm.guest().setStealTimeAccounting(accounting);
    host.spawn("hog", Program.named("hog")
        .loopWhile(t -> true, Program.named("hog_loop").userWork(MS, "hog").build()).build(), 0);
    Task a = vm.guest().spawn("a", Program.named("a")
        .loopWhile(t -> true, Program.named("a_loop").userWork(MS, "a").build()).build());
    Task b = vm.guest().spawn("b", Program.named("b")
        .loopWhile(t -> true, Program.named("b_loop").userWork(MS, "b").build()).build());
    sim.runUntil(T);
    machine.syncAccounting();
    VcpuTask v = vm.vcpus().get(0);
    return new Outcome(v.stealNs(), machine.account().threadTotal(v.id()), guestCfs.sumExecRuntime(a) + guestCfs.sumExecRuntime(b));
  }

  @Test
  void stealTime_isTheRunDelay_andAddsUpWithOnCpuTime() {
    Outcome o = run(false);

    // always runnable: every nanosecond is either on the CPU or stolen
    assertThat((double) (o.steal() + o.vcpuOnCpu())).isCloseTo((double) T, within(0.001 * T));
    assertThat((double) o.steal() / T).isCloseTo(0.5, within(0.05));
  }

  @Test
  void guestWithoutAccounting_chargesStealToItsTasks_withAccountingItDoesNot() {
    Outcome without = run(false);
    Outcome with = run(true);

    // without: the guest's task clock runs through the steal (within the last tick of updates)
    assertThat((double) without.guestExec()).isCloseTo((double) T, within(0.02 * T));
    // with: the guest's tasks are charged only what the vCPU ran
    assertThat((double) with.guestExec()).isCloseTo((double) with.vcpuOnCpu(), within(0.02 * T));
    assertThat(with.guestExec()).isLessThan(without.guestExec() * 6 / 10);
  }
}

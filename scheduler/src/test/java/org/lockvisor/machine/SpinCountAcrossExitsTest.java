package org.lockvisor.machine;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.collect.ImmutableSet;
import org.junit.jupiter.api.Test;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.machine.config.DirectedYield;
import org.lockvisor.machine.config.HypervisorConfig;
import org.lockvisor.machine.config.KernelConfig;
import org.lockvisor.machine.config.SpinTrapConfig;
import org.lockvisor.scheduler.builtin.CfsScheduler;

/**
 * A pause-loop exit interrupts a paravirt spin loop without ending it (arch/x86/include/asm/
 * spinlock.h 3.12 {@code arch_spin_lock}: {@code count} lives in the guest loop; a VM exit, the
 * directed yield of {@code kvm_vcpu_on_spin} and the re-entry suspend and resume it). So the
 * SPIN_THRESHOLD budget counts the loop's own CPU time: the wall time of the exits and of the
 * sibling vCPU that runs meanwhile is not iterations.
 */
class SpinCountAcrossExitsTest {
  private static final long US = 1_000;
  private static final long MS = 1_000_000;
  private static final SpinTrapConfig TRAP =
      SpinTrapConfig.fixed(2 * US, "PAUSE_INSTRUCTION", 0, 0, true, ImmutableSet.of());

  /** Two vCPUs on one physical CPU: vCPU 0 spins with {@code budget}, vCPU 1 burns guest work. */
  private static long[] spinOnSharedCpu(long budget, long endAt) {
    Simulation sim = new Simulation(1);
    Machine machine = new Machine(sim);
    machine.createHost("host", 1, KernelConfig.zeroCost(MS), CfsScheduler.withDefaults());
    Vm vm = machine.createVm("vm", 2, KernelConfig.zeroCost(4 * MS), CfsScheduler.withDefaults(),
        new HypervisorConfig(500, 0, 0).withSpinTrap(TRAP).withDirectedYield(DirectedYield.V3_8), 0, 0);
    boolean[] released = {false};
    long[] out = {-1, -1, 0, -1};
    Task[] spinner = {null};
    spinner[0] = vm.guest().spawn("spin", Program.named("waiter")
        .run(t -> out[3] = sim.now())
        .op(Ops.spinUntil("_raw_spin_lock", t -> released[0], budget))
        .run(t -> {
          out[0] = sim.now();
          out[1] = t.spinTimedOut() ? 0 : t.spinBudgetLeft();
        })
        .build(), 0);
    vm.guest().spawn("burn", Program.named("burn").loopWhile(t -> true,
        Program.named("b").work(MS, "burn").build()).build(), 1);
    if (endAt > 0) {
      sim.schedule(endAt, (kind, arg) -> {
        released[0] = true;
        spinner[0].poke(0);
      }, 0, 0);
    }
    sim.runUntil(20 * MS);
    out[2] = vm.yieldStats().pleExits();
    return out;
  }

  @Test
  void threshold_overcommittedWithPle_timesOutAfterItsOwnSpinTimeNotWallTime() {
    long budget = 100 * US;
    long[] r = spinOnSharedCpu(budget, 0);

    assertThat(r[2]).as("PLE exits interrupted the loop").isPositive();
    // the sibling vCPU runs whenever the spinner yields: the threshold takes longer than its
    // budget in wall time, and every PLE exit (2 us window) is at most one window of iterations
    assertThat(r[0]).as("wall time to the threshold").isGreaterThan(budget + 10 * US);
    assertThat(r[2]).as("exits before the threshold").isGreaterThanOrEqualTo(budget / (2 * US) - 1);
  }

  @Test
  void budgetLeft_spinEndedByTheLock_isBudgetLessTheLoopsOwnTime() {
    long budget = 15 * MS;
    long endAt = 10 * MS;
    long[] r = spinOnSharedCpu(budget, endAt);

    assertThat(r[3]).as("the spin started before the release").isLessThan(endAt);
    assertThat(r[0]).isGreaterThanOrEqualTo(endAt);
    long wall = r[0] - r[3];
    // spinning wall time shared with a burning sibling through PLE exits and directed yields:
    // the loop ran only part of it, so more is left than budget - wall time, less than the budget
    assertThat(r[1]).isGreaterThan(budget - wall).isLessThan(budget);
  }
}

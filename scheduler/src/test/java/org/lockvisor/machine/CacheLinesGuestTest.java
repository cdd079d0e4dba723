package org.lockvisor.machine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.lockvisor.arch.spi.Topology;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.machine.config.HypervisorConfig;
import org.lockvisor.machine.config.KernelConfig;
import org.lockvisor.scheduler.builtin.CfsScheduler;

/**
 * A guest's shared line moves between the physical CPUs its vCPU threads run on: two guest tasks
 * on vCPUs pinned to SMT siblings pay the SMT transfer, on vCPUs in different sockets the remote
 * one; a machine without configured pricing refuses to price.
 */
class CacheLinesGuestTest {
  private static final long MS = 1_000_000;
  private static final long SMT = 5;
  private static final long REMOTE = 150;

  private long guestBounce(int pcpuA, int pcpuB) {
    Machine machine = new Machine(new Simulation(1));
    machine.createHost("host", 16, KernelConfig.zeroCost(MS), CfsScheduler.withDefaults());
    machine.setCacheLines(CacheLines.of(new Topology(2, 4, 2), 0, 0, SMT, 60, REMOTE));
    Vm vm = machine.createVm("vm", 2, KernelConfig.zeroCost(MS), CfsScheduler.withDefaults(),
        HypervisorConfig.zeroCost(), pcpuA, pcpuB);
    SharedLine line = machine.cacheLines().line("shared");
    long[] cost = {-1};
    vm.guest().spawn("a", Program.named("a").run(t -> line.rmw(t)).build(), 0);
    vm.guest().spawn("b", Program.named("b").work(10_000, "later").run(t -> cost[0] = line.rmw(t)).build(), 1);
    machine.sim().runUntil(MS);
    return cost[0];
  }

  @Test
  void rmw_guestTasksOnVcpusOfSmtSiblings_paysTheSmtTransfer() {
    assertThat(guestBounce(0, 1)).isEqualTo(SMT);
  }

  @Test
  void rmw_guestTasksOnVcpusInDifferentSockets_paysTheRemoteTransfer() {
    assertThat(guestBounce(0, 8)).isEqualTo(REMOTE);
  }

  @Test
  void cacheLines_notConfigured_refusesWithOneLine() {
    Machine machine = new Machine(new Simulation(1));
    machine.createHost("host", 2, KernelConfig.zeroCost(MS), CfsScheduler.withDefaults());

    assertThatThrownBy(machine::cacheLines).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("Platforms.cacheLines");
  }
}

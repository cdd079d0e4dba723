package org.lockvisor.devices.testing;

import org.lockvisor.arch.catalog.ArchProfiles;
import org.lockvisor.arch.spi.ArchCosts;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Vm;
import org.lockvisor.machine.config.HypervisorConfig;
import org.lockvisor.machine.config.KernelConfig;
import org.lockvisor.machine.config.TtwuQueueMode;
import org.lockvisor.platform.Platforms;
import org.lockvisor.scheduler.builtin.RoundRobinScheduler;

/**
 * Small machines for device and workload tests: a host of {@code pcpus} physical CPUs and one VM
 * whose vCPU threads are pinned to host CPUs 0..vcpus-1 (the rest are free for host threads such
 * as the VMM's main loop). Scheduling costs are the KERNEL-MODEL section 10 centres; no halt
 * polling (KVM in 2014 had none).
 */
public final class TestMachines {
  public static final long MS = 1_000_000;
  /** The x86_64-kvm profile's costs (device and workload tests price their paths with them). */
  public static final ArchCosts X86_COSTS = ArchCosts.of(ArchProfiles.byName("x86_64-kvm"));

  private TestMachines() {}

  public static KernelConfig hostConfig() {
    return KernelConfig.zeroCost(4 * MS)
        .withContextSwitch(1500)
        .withIdleExit(2000)
        .withTtwu(TtwuQueueMode.NEVER, 100, 500, 1000, 300, false);
  }

  public static KernelConfig guestConfig() {
    return KernelConfig.zeroCost(4 * MS)
        .withContextSwitch(1500)
        .withIdleExit(2000)
        .withTtwu(TtwuQueueMode.NEVER, 100, 500, 1000, 2000, true);
  }

  public static HypervisorConfig hypervisor() {
    return new HypervisorConfig(700, 500, 0);
  }

  /** A machine with its host; call {@link #vm} next. */
  public static Machine machine(long seed, int pcpus) {
    Machine m = new Machine(new Simulation(seed));
    m.createHost("host", pcpus, hostConfig(), new RoundRobinScheduler(3 * MS));
    Platforms.configureCacheLines(m, ArchProfiles.byName("x86_64-kvm"));
    return m;
  }

  public static Vm vm(Machine m, int vcpus) {
    int[] pinning = new int[vcpus];
    for (int i = 0; i < vcpus; i++) {
      pinning[i] = i;
    }
    return m.createVm("vm0", vcpus, guestConfig(), new RoundRobinScheduler(3 * MS), hypervisor(), pinning);
  }
}

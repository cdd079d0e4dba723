package org.lockvisor.platform;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.lockvisor.arch.catalog.ArchProfiles;
import org.lockvisor.arch.spi.ArchProfile;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Vm;
import org.lockvisor.machine.config.HypervisorConfig;
import org.lockvisor.machine.config.KernelConfig;
import org.lockvisor.machine.config.TtwuQueueMode;
import org.lockvisor.scheduler.builtin.CfsScheduler;
import org.lockvisor.scheduler.builtin.PowervmDispatchScheduler;

/**
 * A profile without a host tick (PowerVM) is partition firmware: its host kernel ticks at the
 * dispatch window with no tick handler cost, it never halt-polls, and its hypervisor paths are
 * hcalls; KVM profiles keep their host tick and halt polling.
 */
class PlatformsPartitionTest {

  @Test
  void powervm_hostKernelAndHypervisorArePartitionFirmware() {
    ArchProfile ppc = ArchProfiles.byName("ppc64-powervm");
    KernelConfig host = Platforms.hostKernel(ppc, TtwuQueueMode.NEVER, false);
    assertThat(host.tickNs()).isEqualTo(ppc.hypervisor().dispatchWindowNs());
    assertThat(host.tickCostNs()).isZero();
    HypervisorConfig hv = Platforms.hypervisor(ppc);
    assertThat(hv.partitionFirmware()).isTrue();
    assertThat(hv.haltPollNs()).isZero();

    Machine m = new Machine(new Simulation(1));
    m.createHost("phyp", 2, host, new PowervmDispatchScheduler(ppc.hypervisor().dispatchWindowNs(), 2, false));
    Vm vm = m.createVm("lpar", 4, Platforms.guestKernel(ppc, 4, TtwuQueueMode.NEVER, false),
        CfsScheduler.withDefaults(), hv);
    assertThat(vm.partitionFirmware()).isTrue();
    assertThat(vm.haltHandler().name()).isEqualTo("H_CEDE");
  }

  @Test
  void kvm_keepsHostTickAndIsNotPartitionFirmware() {
    ArchProfile x86 = ArchProfiles.byName("x86_64-kvm");
    assertThat(Platforms.hostKernel(x86, TtwuQueueMode.NEVER, false).tickNs()).isEqualTo(x86.hypervisor().hostTickNs());
    assertThat(Platforms.hypervisor(x86).partitionFirmware()).isFalse();
  }
}

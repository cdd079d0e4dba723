package org.lockvisor.platform;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.lockvisor.arch.catalog.ArchProfiles;
import org.lockvisor.arch.spi.ArchProfile;
import org.lockvisor.arch.spi.CostKey;
import org.lockvisor.machine.VcpuPreemptedHook;
import org.lockvisor.machine.config.HypervisorConfig;
import org.lockvisor.machine.config.SpinTrapConfig;

/** Each built-in profile's hypervisor behaviour reaches the machine as its profile says. */
class PlatformsTest {

  @Test
  void x86_pauseLoopExiting_everySpinTraps_withDirectedYield() {
    ArchProfile x86 = ArchProfiles.byName("x86_64-kvm");
    HypervisorConfig hv = Platforms.hypervisor(x86);

    assertThat(hv.spinTrap().enabled()).isTrue();
    assertThat(hv.spinTrap().exitReason()).isEqualTo("PAUSE_INSTRUCTION");
    assertThat(hv.spinTrap().windowNs()).isEqualTo(x86.ns(CostKey.PLE_WINDOW)).isPositive();
    assertThat(hv.spinTrap().yieldNs()).isEqualTo(x86.ns(CostKey.KVM_VCPU_ON_SPIN));
    assertThat(hv.spinTrap().scanPerVcpuNs()).isEqualTo(x86.ns(CostKey.CACHELINE_XFER_SOCKET));
    assertThat(hv.spinTrap().directedYield()).isTrue();
    assertThat(hv.spinTrap().untrappedSymbols()).isEmpty();
  }

  @Test
  void arm64_wfeTrapping_cpuRelaxLoopsDoNotTrap() {
    SpinTrapConfig trap = Platforms.spinTrap(ArchProfiles.byName("arm64-kvm"));

    assertThat(trap.enabled()).isTrue();
    assertThat(trap.exitReason()).isEqualTo("WFx");
    assertThat(trap.untrappedSymbols()).contains("osq_lock", "mutex_spin_on_owner", "rwsem_spin_on_owner");
  }

  @Test
  void powervmAndS390_nothingTraps_guestsYieldExplicitly() {
    assertThat(Platforms.spinTrap(ArchProfiles.byName("ppc64-powervm"))).isEqualTo(SpinTrapConfig.OFF);
    assertThat(Platforms.spinTrap(ArchProfiles.byName("s390x-kvm"))).isEqualTo(SpinTrapConfig.OFF);
    assertThat(Platforms.vcpuPreempted(ArchProfiles.byName("ppc64-powervm"))).isEqualTo(VcpuPreemptedHook.NOT_DISPATCHED);
  }

  @Test
  void cacheLines_x86Profile_pricesSmtBelowSocketBelowRemote() {
    ArchProfile x86 = ArchProfiles.byName("x86_64-kvm");
    var lines = Platforms.cacheLines(x86, x86.topology().cpus());

    assertThat(lines.atomicNs()).isEqualTo(x86.ns(CostKey.ATOMIC_RMW));
    assertThat(lines.xferNs(0, 1)).isEqualTo(x86.ns(CostKey.CACHELINE_XFER_SMT));
    assertThat(lines.xferNs(0, 2)).isEqualTo(x86.ns(CostKey.CACHELINE_XFER_SOCKET));
    assertThat(lines.xferNs(0, x86.topology().cpus() - 1)).isEqualTo(x86.ns(CostKey.CACHELINE_XFER_REMOTE));
  }

  @Test
  void cacheLines_hostLargerThanTopology_addsSocketsOfTheSameShape() {
    ArchProfile x86 = ArchProfiles.byName("x86_64-kvm");
    int cpus = x86.topology().cpus();
    var lines = Platforms.cacheLines(x86, cpus * 2);

    assertThat(lines.topology().cpus()).isGreaterThanOrEqualTo(cpus * 2);
    assertThat(lines.xferNs(0, cpus)).isEqualTo(x86.ns(CostKey.CACHELINE_XFER_REMOTE));
  }
}

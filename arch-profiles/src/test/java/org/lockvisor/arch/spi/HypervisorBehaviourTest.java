package org.lockvisor.arch.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.lockvisor.arch.spi.HypervisorBehaviour.NotifyPath;
import org.lockvisor.arch.spi.HypervisorBehaviour.SpinTrap;
import org.lockvisor.arch.spi.HypervisorBehaviour.VcpuPreemptedSemantics;

/** Property: only coherent hypervisor behaviours can be built; incoherent ones say why. */
class HypervisorBehaviourTest {

  private static HypervisorBehaviour kvm() {
    return new HypervisorBehaviour(VcpuPreemptedSemantics.X86_STEAL_TIME_INVOLUNTARY,
        new SpinTrap(true, SpinTrap.Trigger.PAUSE_LOOP, 128, 2, true), true, NotifyPath.IOEVENTFD_IN_KERNEL,
        true, false, 250, 1000, 0, 1.0);
  }

  @Test
  void x86Semantics_withoutStealTime_rejected() {
    assertThatThrownBy(() -> kvm().toBuilder().stealTime(false).build())
        .hasMessageContaining("needs stealTime");
  }

  @Test
  void entitlementBelowOne_withoutDispatchWindow_rejected() {
    assertThatThrownBy(() -> kvm().toBuilder().entitlement(0.5).build())
        .hasMessageContaining("needs a dispatch window");
  }

  @Test
  void hostWithoutTick_needsDispatchWindow() {
    assertThatThrownBy(() -> kvm().toBuilder().hostHz(0).build()).hasMessageContaining("dispatchWindowNs");
    HypervisorBehaviour phyp = kvm().toBuilder().vcpuPreempted(VcpuPreemptedSemantics.PPC_YIELD_COUNT)
        .hostHz(0).dispatchWindowNs(10_000_000).entitlement(0.5).build();
    assertThat(phyp.hostTickNs()).isZero();
  }

  @Test
  void directedYield_withoutTrap_rejected() {
    assertThatThrownBy(() -> new SpinTrap(false, SpinTrap.Trigger.WFE, 0, 1, true))
        .hasMessageContaining("directedYield needs an enabled spin trap");
  }

  @Test
  void tickPeriods_fromHz() {
    assertThat(kvm().guestTickNs()).isEqualTo(1_000_000);
    assertThat(kvm().hostTickNs()).isEqualTo(4_000_000);
  }

  @Test
  void notifyPath_onlyUserspaceVmmIsSynchronous() {
    assertThat(NotifyPath.USERSPACE_VMM_UNDER_GLOBAL_LOCK.synchronousInVcpu()).isTrue();
    assertThat(NotifyPath.IOEVENTFD_IN_KERNEL.synchronousInVcpu()).isFalse();
    assertThat(NotifyPath.HCALL_TO_IO_SERVER.synchronousInVcpu()).isFalse();
  }
}

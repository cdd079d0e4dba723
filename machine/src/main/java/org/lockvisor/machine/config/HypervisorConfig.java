package org.lockvisor.machine.config;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * Hypervisor costs the machine itself needs (devices price their own exits).
 *
 * @param exitRoundtripNs hardware VM exit + entry (added to every exit)
 * @param exitHltNs handling of a HLT/WFI exit before polling or sleeping
 * @param haltPollNs KVM halt_poll_ns: how long a halted vCPU thread polls before sleeping
 * @param spinTrap pause-loop exiting / WFE trapping and directed yield ({@link SpinTrapConfig#OFF}: none)
 * @param partitionFirmware a partition hypervisor (PowerVM PHYP) rather than KVM: the host-side
 *     paths are hypervisor calls, charged to hypervisor-domain symbols ({@code H_CEDE} for the
 *     idle halt, {@code H_IPI} for an IPI, {@code hcall} for the entry/exit round trip), which a
 *     guest-sampled profile shows as {@code [H]}
 * @param directedYield the era's {@code kvm_vcpu_on_spin} variant when {@code spinTrap} has
 *     directed yield on (default {@link DirectedYield#V3_8})
 * @param pleShrink {@code ple_window_shrink} (3.18+ vmx): 0 resets a vCPU's PLE window to the
 *     base when it is scheduled in; below the base window it divides, else it subtracts
 * @param hostActivity the host's background activity (tick phase, softirqs, kworkers) that the
 *     experiment applies to the host kernel ({@link HostActivity#OFF}: none)
 * @param kickYield the x86 {@code KVM_HC_KICK_CPU} handler's {@code kvm_sched_yield} toward the
 *     kicked vCPU ("KVM: X86: Boost queue head vCPU to mitigate lock waiter preemption",
 *     266e85a5ec91, 2019: arch/x86/kvm/x86.c {@code kvm_emulate_hypercall} calls {@code
 *     kvm_sched_yield(vcpu->kvm, a1)} after {@code kvm_pv_kick_cpu_op}, and {@code
 *     kvm_sched_yield} yields only to a target with {@code vcpu->ready} set)
 */
public record HypervisorConfig(long exitRoundtripNs, long exitHltNs, long haltPollNs, SpinTrapConfig spinTrap,
    boolean partitionFirmware, DirectedYield directedYield, int pleShrink, HostActivity hostActivity,
    boolean kickYield) {
  public HypervisorConfig {
    checkArgument(exitRoundtripNs >= 0 && exitHltNs >= 0 && haltPollNs >= 0, "hypervisor costs must not be negative");
    checkArgument(spinTrap != null, "spinTrap must not be null; use SpinTrapConfig.OFF");
    checkArgument(directedYield != null, "directedYield must be set");
    checkArgument(pleShrink >= 0, "pleShrink must not be negative: [%s]", pleShrink);
    checkArgument(hostActivity != null, "hostActivity must be set; use HostActivity.OFF");
    checkArgument(!kickYield || !partitionFirmware, "the pv kick's yield is KVM's (KVM_HC_KICK_CPU), not PowerVM's");
  }

  /** The record before issue 34's kick yield: no yield toward the kicked vCPU. */
  public HypervisorConfig(long exitRoundtripNs, long exitHltNs, long haltPollNs, SpinTrapConfig spinTrap,
      boolean partitionFirmware, DirectedYield directedYield, int pleShrink, HostActivity hostActivity) {
    this(exitRoundtripNs, exitHltNs, haltPollNs, spinTrap, partitionFirmware, directedYield, pleShrink,
        hostActivity, false);
  }

  /** The record before issue 17: 3.8 directed yield, ple_window_shrink 0, no host activity. */
  public HypervisorConfig(long exitRoundtripNs, long exitHltNs, long haltPollNs, SpinTrapConfig spinTrap,
      boolean partitionFirmware) {
    this(exitRoundtripNs, exitHltNs, haltPollNs, spinTrap, partitionFirmware, DirectedYield.V3_8, 0,
        HostActivity.OFF);
  }

  /** A KVM-style hypervisor (host kernel paths with KVM's symbols) without spin trapping. */
  public HypervisorConfig(long exitRoundtripNs, long exitHltNs, long haltPollNs) {
    this(exitRoundtripNs, exitHltNs, haltPollNs, SpinTrapConfig.OFF, false);
  }

  /** A KVM-style hypervisor with the given spin trap. */
  public HypervisorConfig(long exitRoundtripNs, long exitHltNs, long haltPollNs, SpinTrapConfig spinTrap) {
    this(exitRoundtripNs, exitHltNs, haltPollNs, spinTrap, false);
  }

  /** Without spin trapping; {@code partitionFirmware} as the record. */
  public HypervisorConfig(long exitRoundtripNs, long exitHltNs, long haltPollNs, boolean partitionFirmware) {
    this(exitRoundtripNs, exitHltNs, haltPollNs, SpinTrapConfig.OFF, partitionFirmware);
  }

  public HypervisorConfig withSpinTrap(SpinTrapConfig trap) {
    return new HypervisorConfig(exitRoundtripNs, exitHltNs, haltPollNs, trap, partitionFirmware, directedYield,
        pleShrink, hostActivity, kickYield);
  }

  public HypervisorConfig withDirectedYield(DirectedYield variant) {
    return new HypervisorConfig(exitRoundtripNs, exitHltNs, haltPollNs, spinTrap, partitionFirmware, variant,
        pleShrink, hostActivity, kickYield);
  }

  public HypervisorConfig withPleShrink(int shrink) {
    return new HypervisorConfig(exitRoundtripNs, exitHltNs, haltPollNs, spinTrap, partitionFirmware, directedYield,
        shrink, hostActivity, kickYield);
  }

  public HypervisorConfig withHostActivity(HostActivity activity) {
    return new HypervisorConfig(exitRoundtripNs, exitHltNs, haltPollNs, spinTrap, partitionFirmware, directedYield,
        pleShrink, activity, kickYield);
  }

  public HypervisorConfig withKickYield(boolean on) {
    return new HypervisorConfig(exitRoundtripNs, exitHltNs, haltPollNs, spinTrap, partitionFirmware, directedYield,
        pleShrink, hostActivity, on);
  }

  public static HypervisorConfig zeroCost() {
    return new HypervisorConfig(0, 0, 0);
  }
}

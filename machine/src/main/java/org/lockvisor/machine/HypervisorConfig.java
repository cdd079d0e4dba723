package org.lockvisor.machine;

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
 */
public record HypervisorConfig(long exitRoundtripNs, long exitHltNs, long haltPollNs, SpinTrapConfig spinTrap,
    boolean partitionFirmware) {
  public HypervisorConfig {
    checkArgument(exitRoundtripNs >= 0 && exitHltNs >= 0 && haltPollNs >= 0, "hypervisor costs must not be negative");
    checkArgument(spinTrap != null, "spinTrap must not be null; use SpinTrapConfig.OFF");
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
    return new HypervisorConfig(exitRoundtripNs, exitHltNs, haltPollNs, trap, partitionFirmware);
  }

  public static HypervisorConfig zeroCost() {
    return new HypervisorConfig(0, 0, 0);
  }
}

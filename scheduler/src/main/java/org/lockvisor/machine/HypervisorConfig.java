package org.lockvisor.machine;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * Hypervisor costs the machine itself needs (devices price their own exits).
 *
 * @param exitRoundtripNs hardware VM exit + entry (added to every exit)
 * @param exitHltNs handling of a HLT/WFI exit before polling or sleeping
 * @param haltPollNs KVM halt_poll_ns: how long a halted vCPU thread polls before sleeping
 * @param spinTrap pause-loop exiting / WFE trapping and directed yield ({@link SpinTrapConfig#OFF}: none)
 */
public record HypervisorConfig(long exitRoundtripNs, long exitHltNs, long haltPollNs, SpinTrapConfig spinTrap) {
  public HypervisorConfig {
    checkArgument(exitRoundtripNs >= 0 && exitHltNs >= 0 && haltPollNs >= 0, "hypervisor costs must not be negative");
    checkArgument(spinTrap != null, "spinTrap must not be null; use SpinTrapConfig.OFF");
  }

  /** Without spin trapping. */
  public HypervisorConfig(long exitRoundtripNs, long exitHltNs, long haltPollNs) {
    this(exitRoundtripNs, exitHltNs, haltPollNs, SpinTrapConfig.OFF);
  }

  public HypervisorConfig withSpinTrap(SpinTrapConfig trap) {
    return new HypervisorConfig(exitRoundtripNs, exitHltNs, haltPollNs, trap);
  }

  public static HypervisorConfig zeroCost() {
    return new HypervisorConfig(0, 0, 0);
  }
}

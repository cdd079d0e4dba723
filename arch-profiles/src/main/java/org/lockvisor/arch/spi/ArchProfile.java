package org.lockvisor.arch.spi;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * Everything the simulator needs to know about one architecture and hypervisor: the default host
 * topology, the priced constants, and the hypervisor behaviour. One profile serves every
 * experiment on its architecture; experiments may choose another topology, never other costs.
 *
 * @param name stable lower-case name, e.g. {@code x86_64-kvm}
 * @param summary one line: what machine and hypervisor this profile models
 * @param description a few sentences: era, hardware, and the choices a user should know about
 * @param topology default host topology (experiments usually set their own)
 * @param costs one sourced cost per {@link CostKey}
 * @param hypervisor switches and semantics of the hypervisor
 * @param symbols the kernel symbols and exit names of this architecture ({@link KernelSymbols})
 */
public record ArchProfile(
    String name, String summary, String description, Topology topology, CostTable costs, HypervisorBehaviour hypervisor,
    KernelSymbols symbols) {

  public ArchProfile {
    checkArgument(name != null && name.matches("[a-z0-9][a-z0-9_-]*"),
        "profile name must be lower-case letters, digits, '-' or '_': [%s]", name);
    checkArgument(summary != null && !summary.isBlank(), "profile [%s] needs a summary", name);
    checkArgument(description != null && !description.isBlank(), "profile [%s] needs a description", name);
    checkNotNull(topology, "profile [%s] needs a topology", name);
    checkNotNull(costs, "profile [%s] needs a cost table", name);
    checkNotNull(hypervisor, "profile [%s] needs a hypervisor behaviour", name);
    checkNotNull(symbols, "profile [%s] needs its kernel symbols", name);
  }

  /**
   * A profile that names no symbols of its own: x86-64's, the names the machine always charged
   * (profiles written before {@link KernelSymbols} keep their outputs).
   */
  public ArchProfile(String name, String summary, String description, Topology topology, CostTable costs,
      HypervisorBehaviour hypervisor) {
    this(name, summary, description, topology, costs, hypervisor, KernelSymbols.X86_64);
  }

  /** Shorthand for {@code costs().ns(key)}. */
  public long ns(CostKey key) {
    return costs.ns(key);
  }

  /** The pause-loop / WFE trap window in ns, or 0 when spinning does not trap. */
  public long spinTrapWindowNs() {
    return hypervisor.spinTrap().enabled() ? costs.ns(CostKey.PLE_WINDOW) : 0;
  }

  /** A copy under another name, e.g. for a derived hardware description. */
  public ArchProfile withName(String newName, String newSummary) {
    return new ArchProfile(newName, newSummary, description, topology, costs, hypervisor, symbols);
  }

  public ArchProfile withTopology(Topology t) {
    return new ArchProfile(name, summary, description, t, costs, hypervisor, symbols);
  }

  public ArchProfile withCosts(CostTable c) {
    return new ArchProfile(name, summary, description, topology, c, hypervisor, symbols);
  }

  public ArchProfile withHypervisor(HypervisorBehaviour h) {
    return new ArchProfile(name, summary, description, topology, costs, h, symbols);
  }
}

package org.lockvisor.devices.spi;

import static com.google.common.base.Preconditions.checkArgument;

import org.lockvisor.arch.spi.ArchProfile;
import org.lockvisor.arch.spi.CostKey;
import org.lockvisor.arch.spi.CostTable;

/**
 * The arch profile's priced constants as devices and workloads read them: one {@link CostTable}
 * per architecture, shared by every experiment on it. A device derives its path costs from
 * {@link CostKey}s at attach (never from experiment options), so {@code x86_64-kvm} and
 * {@code arm64-kvm} price the same code path differently only through their profiles.
 */
public final class CostSource {
  private final String arch;
  private final CostTable table;

  private CostSource(String arch, CostTable table) {
    checkArgument(arch != null && !arch.isBlank(), "cost source needs the profile's name");
    checkArgument(table != null, "cost source needs a cost table");
    this.arch = arch;
    this.table = table;
  }

  /** The costs of {@code profile}. */
  public static CostSource of(ArchProfile profile) {
    return new CostSource(profile.name(), profile.costs());
  }

  /** A derived table (what-if studies, sensitivity sweeps); {@code arch} names it in reports. */
  public static CostSource of(String arch, CostTable table) {
    return new CostSource(arch, table);
  }

  /** The profile's name, e.g. {@code arm64-kvm}. */
  public String arch() {
    return arch;
  }

  /** The key in nanoseconds (cycle-priced keys converted by the profile). */
  public long ns(CostKey key) {
    return table.ns(key);
  }

  /** The underlying table (values, units and sources). */
  public CostTable table() {
    return table;
  }

  @Override
  public String toString() {
    return "CostSource[" + arch + "]";
  }
}

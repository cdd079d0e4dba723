package org.lockvisor.arch.spi;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * The one typed view of an arch profile's priced constants that plugins read: every lock, device,
 * workload and scheduler gets it from its context, so a new cost is a new {@link CostKey} in the
 * profiles and nothing else. One profile serves every experiment on its architecture; a plugin
 * derives its path costs from keys at creation (never from experiment options), so {@code
 * x86_64-kvm} and {@code arm64-kvm} price the same code path differently only through their
 * profiles.
 *
 * <p>{@link #ns(CostKey)} is the general read; the default methods name the keys lock algorithms
 * read on their hot paths. An interface: a test may use {@link #of(ArchProfile)} of a built-in
 * profile, a table of its own ({@link #of(String, CostTable)}), or a mock.
 */
public interface ArchCosts {

  /** The profile's name, e.g. {@code arm64-kvm}. */
  String arch();

  /** The key in nanoseconds (cycle-priced keys converted by the profile). */
  long ns(CostKey key);

  /** The key's value in its own unit (e.g. a loop count). */
  double value(CostKey key);

  /** The table behind the view (values, units and sources). */
  CostTable table();

  /** {@code ATOMIC_RMW}: an uncontended locked read-modify-write on an L1-resident line. */
  default long atomicNs() {
    return ns(CostKey.ATOMIC_RMW);
  }

  /** {@code CACHELINE_XFER_SOCKET}: a cache-line transfer between two cores of one socket (a hand-off). */
  default long lineTransferNs() {
    return ns(CostKey.CACHELINE_XFER_SOCKET);
  }

  /** {@code PAUSE}: one {@code cpu_relax()}. */
  default long pauseNs() {
    return ns(CostKey.PAUSE);
  }

  /** {@code SPIN_THRESHOLD_LOOPS}: loop iterations before a pv lock halts (1 &lt;&lt; 15 on x86), at least 1. */
  default long spinThresholdLoops() {
    return Math.max(1, (long) value(CostKey.SPIN_THRESHOLD_LOOPS));
  }

  /** {@code PV_KICK}: the kick hypercall of a pv unlock ({@code kvm_kick_cpu}). */
  default long pvKickNs() {
    return ns(CostKey.PV_KICK);
  }

  /** {@code EXIT_HLT}: entering the halt of {@code pv_wait} (the exit, not the sleep). */
  default long pvWaitNs() {
    return ns(CostKey.EXIT_HLT);
  }

  /** {@code H_CONFER}: the directed-yield hypercall of a shared-processor LPAR. */
  default long confer() {
    return ns(CostKey.H_CONFER);
  }

  /** Time a pv spinner spins before halting: {@link #spinThresholdLoops()} iterations of {@code cpu_relax()}. */
  default long spinThresholdNs() {
    return spinThresholdLoops() * Math.max(1, pauseNs());
  }

  /** The costs of {@code profile}. */
  static ArchCosts of(ArchProfile profile) {
    return of(profile.name(), profile.costs());
  }

  /**
   * Only the costs lock algorithms read, given directly (a machine assembled by hand, a test):
   * {@code ns} of any other key is refused, naming it. Experiments read a profile ({@link
   * #of(ArchProfile)}).
   */
  static ArchCosts ofLocks(long atomicNs, long lineTransferNs, long pauseNs, long spinThresholdLoops, long pvKickNs,
      long pvWaitNs, long confer) {
    checkArgument(atomicNs >= 0 && lineTransferNs >= 0 && pauseNs >= 0 && pvKickNs >= 0 && pvWaitNs >= 0 && confer >= 0,
        "lock costs must not be negative");
    checkArgument(spinThresholdLoops > 0, "spinThresholdLoops must be positive: %s", spinThresholdLoops);
    return new LockOnlyCosts(atomicNs, lineTransferNs, pauseNs, spinThresholdLoops, pvKickNs, pvWaitNs, confer);
  }

  /** A table of its own (what-if studies, tests); {@code arch} names it in reports. */
  static ArchCosts of(String arch, CostTable table) {
    checkArgument(arch != null && !arch.isBlank(), "a cost view needs the profile's name");
    checkArgument(table != null, "a cost view needs a cost table");
    return new TableCosts(arch, table);
  }

  /** A view that refuses every read, saying {@code why} (a plugin created where no profile is known). */
  static ArchCosts unavailable(String why) {
    return new ArchCosts() {
      @Override
      public String arch() {
        throw new IllegalStateException(why);
      }

      @Override
      public long ns(CostKey key) {
        throw new IllegalStateException(why);
      }

      @Override
      public double value(CostKey key) {
        throw new IllegalStateException(why);
      }

      @Override
      public CostTable table() {
        throw new IllegalStateException(why);
      }
    };
  }
}

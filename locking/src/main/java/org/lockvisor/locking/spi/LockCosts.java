package org.lockvisor.locking.spi;

import static com.google.common.base.Preconditions.checkArgument;

import org.lockvisor.arch.spi.ArchProfile;
import org.lockvisor.arch.spi.CostKey;
import org.lockvisor.arch.spi.Topology;
import org.lockvisor.machine.CacheLines;

/**
 * The costs lock algorithms need, in ns, taken from the arch profile by the composition root
 * (one profile serves every experiment on that architecture).
 *
 * @param atomicNs uncontended locked RMW on an L1-resident line
 * @param lineTransferNs cache-line transfer between two cores of the same socket (hand-off)
 * @param pauseNs one cpu_relax()
 * @param spinThresholdLoops SPIN_THRESHOLD: loop iterations before a pv lock halts (1 << 15 on x86)
 * @param pvKickNs the kick hypercall of a pv unlock (kvm_kick_cpu)
 * @param pvWaitNs entering the halt of pv_wait (exit cost excluding the sleep)
 * @param confer cost of H_CONFER / directed yield hypercall (ppc-splpar)
 */
public record LockCosts(
    long atomicNs, long lineTransferNs, long pauseNs, long spinThresholdLoops, long pvKickNs, long pvWaitNs, long confer) {
  public LockCosts {
    checkArgument(atomicNs >= 0 && lineTransferNs >= 0 && pauseNs >= 0 && pvKickNs >= 0 && pvWaitNs >= 0 && confer >= 0,
        "lock costs must not be negative");
    checkArgument(spinThresholdLoops > 0, "spinThresholdLoops must be positive: %s", spinThresholdLoops);
  }

  /** The lock costs of an architecture (shared by every experiment on it). */
  public static LockCosts fromProfile(ArchProfile p) {
    return new LockCosts(
        p.ns(CostKey.ATOMIC_RMW),
        p.ns(CostKey.CACHELINE_XFER_SOCKET),
        p.ns(CostKey.PAUSE),
        Math.max(1, (long) p.costs().value(CostKey.SPIN_THRESHOLD_LOOPS)),
        p.ns(CostKey.PV_KICK),
        p.ns(CostKey.EXIT_HLT),
        p.ns(CostKey.H_CONFER));
  }

  /**
   * Cache-line pricing with these costs on a one-socket host of {@code hostCpus} CPUs (every
   * transfer {@link #lineTransferNs}): for hand-built machines and tests; experiments price lines
   * by the arch profile's topology ({@code Platforms.configureCacheLines}).
   */
  public CacheLines flatCacheLines(int hostCpus) {
    return CacheLines.of(new Topology(1, hostCpus, 1), atomicNs, 0, lineTransferNs, lineTransferNs, lineTransferNs);
  }

  /** Time a pv spinner spins before halting: SPIN_THRESHOLD iterations of cpu_relax(). */
  public long spinThresholdNs() {
    return spinThresholdLoops * Math.max(1, pauseNs);
  }
}

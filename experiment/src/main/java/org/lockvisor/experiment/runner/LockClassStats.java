package org.lockvisor.experiment.runner;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.collect.ImmutableList;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.lockvisor.locking.spi.LockStats;

/**
 * The lock_stat columns of one lock class over a run's measurement window (times in ns), plus what
 * no real tool can give: the data of {@code /proc/lock_stat} ({@code include/linux/lockdep.h},
 * {@code struct lock_class_stats}), which the report package prints. Like lockdep's {@code
 * read_}/{@code write_} statistics, a class taken shared keeps its {@link #reads()} and {@link
 * #writes()} apart (lock_stat's {@code -R} and {@code -W} lines); they are null for a side itself.
 */
public record LockClassStats(
    String className,
    long conBounces,
    long contentions,
    long waitMinNs,
    long waitMaxNs,
    long waitTotalNs,
    long acqBounces,
    long acquisitions,
    long holdMinNs,
    long holdMaxNs,
    long holdTotalNs,
    long holderPreemptedWaitNs,
    long handoffsToPreemptedWaiter,
    long halts,
    long kicks,
    List<ContentionPoint> points,
    LockClassStats reads,
    LockClassStats writes) {

  /** One call site that waited for a class, with the number of contentions there. */
  public record ContentionPoint(String symbol, long count) {
    public ContentionPoint {
      checkArgument(symbol != null && !symbol.isBlank(), "contention point needs a symbol");
      checkArgument(count >= 0, "count must not be negative: %s", count);
    }
  }

  public LockClassStats {
    checkArgument(className != null && !className.isBlank(), "lock class needs a name");
    points = ImmutableList.copyOf(points);
  }

  /** A class without read/write sides (a spinlock, a mutex). */
  public LockClassStats(String className, long conBounces, long contentions, long waitMinNs, long waitMaxNs,
      long waitTotalNs, long acqBounces, long acquisitions, long holdMinNs, long holdMaxNs, long holdTotalNs,
      long holderPreemptedWaitNs, long handoffsToPreemptedWaiter, long halts, long kicks,
      List<ContentionPoint> points) {
    this(className, conBounces, contentions, waitMinNs, waitMaxNs, waitTotalNs, acqBounces, acquisitions,
        holdMinNs, holdMaxNs, holdTotalNs, holderPreemptedWaitNs, handoffsToPreemptedWaiter, halts, kicks, points,
        null, null);
  }

  /** Whether the class was taken shared: lock_stat prints its -R (and -W) lines. */
  public boolean hasReads() {
    return reads != null && reads.acquisitions() > 0;
  }

  /** The columns of {@code stats}, with the call sites that take the lock. */
  public static LockClassStats of(String className, LockStats s, List<String> callSites) {
    return new LockClassStats(className, s.conBounces(), s.contentions(), s.waitMinNs(), s.waitMaxNs(),
        s.waitTotalNs(), s.acqBounces(), s.acquisitions(), s.holdMinNs(), s.holdMaxNs(), s.holdTotalNs(),
        s.holderPreemptedWaitNs(), s.handoffsToPreemptedWaiter(), s.halts(), s.kicks(),
        points(s.contentions(), callSites), side(className, s.reads()), side(className, s.writes()));
  }

  private static LockClassStats side(String className, LockStats side) {
    return side == null ? null : of(className, side, List.of());
  }

  private static LockClassStats plusSide(LockClassStats a, LockClassStats b) {
    return a == null ? b : b == null ? a : a.plus(b);
  }

  /**
   * A lock taken from one call site was contended there every time; with several call sites
   * the split is unknown, so no points are claimed.
   */
  private static List<ContentionPoint> points(long contentions, List<String> callSites) {
    return contentions > 0 && callSites.size() == 1
        ? List.of(new ContentionPoint(callSites.get(0), contentions))
        : List.of();
  }

  public double waitAvgNs() {
    return contentions == 0 ? 0 : (double) waitTotalNs / contentions;
  }

  public double holdAvgNs() {
    return acquisitions == 0 ? 0 : (double) holdTotalNs / acquisitions;
  }

  /** Two instances of one class, aggregated (lockdep keeps statistics per class). */
  LockClassStats plus(LockClassStats o) {
    List<ContentionPoint> merged = new ArrayList<>();
    Map<String, Long> bySymbol = new LinkedHashMap<>();
    for (ContentionPoint p : points) {
      bySymbol.merge(p.symbol(), p.count(), Long::sum);
    }
    for (ContentionPoint p : o.points) {
      bySymbol.merge(p.symbol(), p.count(), Long::sum);
    }
    bySymbol.forEach((symbol, count) -> merged.add(new ContentionPoint(symbol, count)));
    return new LockClassStats(className, conBounces + o.conBounces, contentions + o.contentions,
        minOfSampled(waitMinNs, contentions, o.waitMinNs, o.contentions), Math.max(waitMaxNs, o.waitMaxNs),
        waitTotalNs + o.waitTotalNs, acqBounces + o.acqBounces, acquisitions + o.acquisitions,
        minOfSampled(holdMinNs, acquisitions, o.holdMinNs, o.acquisitions), Math.max(holdMaxNs, o.holdMaxNs),
        holdTotalNs + o.holdTotalNs, holderPreemptedWaitNs + o.holderPreemptedWaitNs,
        handoffsToPreemptedWaiter + o.handoffsToPreemptedWaiter, halts + o.halts, kicks + o.kicks, merged,
        plusSide(reads, o.reads), plusSide(writes, o.writes));
  }

  private static long minOfSampled(long a, long aSamples, long b, long bSamples) {
    if (aSamples == 0) {
      return b;
    }
    return bSamples == 0 ? a : Math.min(a, b);
  }
}

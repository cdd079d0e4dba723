package org.lockvisor.experiment.runner;

import com.google.common.collect.ImmutableSortedMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockStats;

/**
 * The counters of every lock instance of one algorithm summed over a run's measurement window:
 * lock_stat's acquisitions, contentions and hold time, and the counters lock_stat has no column
 * for — sleeps, optimistic-spin acquisitions and bail-outs, confers (H_CONFER, directed yield),
 * the OSQ heads' spins on the owner ({@code mutex_spin_on_owner}, {@code rwsem_spin_on_owner})
 * and the rwsem wakeups left to a spinner. {@link ExperimentResult#lockTotals()} holds one per
 * algorithm a run created.
 *
 * @param algorithm the lock plugin's name, e.g. {@code rwsem-xadd}
 * @param locks lock instances of the algorithm
 */
public record LockTotals(String algorithm, long locks, long acquisitions, long contentions, long holdTotalNs,
    long sleeps, long spinAcquisitions, long spinBailouts, long confers, long ownerSpins, long ownerSpinNs,
    long wakeupsLeftToSpinner) {

  /** The totals of {@code locks} by algorithm, in algorithm name order. */
  public static Map<String, LockTotals> of(List<KernelLock> locks) {
    Map<String, long[]> sums = new TreeMap<>();
    for (KernelLock l : locks) {
      LockStats s = l.stats();
      long[] t = sums.computeIfAbsent(l.algorithm(), k -> new long[11]);
      t[0]++;
      t[1] += s.acquisitions();
      t[2] += s.contentions();
      t[3] += s.holdTotalNs();
      t[4] += s.sleeps();
      t[5] += s.spinAcquisitions();
      t[6] += s.spinBailouts();
      t[7] += s.confers();
      t[8] += s.ownerSpins();
      t[9] += s.ownerSpinNs();
      t[10] += s.wakeupsLeftToSpinner();
    }
    ImmutableSortedMap.Builder<String, LockTotals> out = ImmutableSortedMap.naturalOrder();
    sums.forEach((a, t) -> out.put(a, new LockTotals(a, t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8], t[9],
        t[10])));
    return out.build();
  }

  /** The sum of every algorithm's totals, under {@code algorithm} {@code all}. */
  public static LockTotals all(Map<String, LockTotals> byAlgorithm) {
    long[] t = new long[11];
    for (LockTotals l : byAlgorithm.values()) {
      long[] v = {l.locks, l.acquisitions, l.contentions, l.holdTotalNs, l.sleeps, l.spinAcquisitions,
          l.spinBailouts, l.confers, l.ownerSpins, l.ownerSpinNs, l.wakeupsLeftToSpinner};
      for (int i = 0; i < t.length; i++) {
        t[i] += v[i];
      }
    }
    return new LockTotals("all", t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8], t[9], t[10]);
  }
}

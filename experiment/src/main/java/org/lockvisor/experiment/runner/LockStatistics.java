package org.lockvisor.experiment.runner;

import com.google.common.collect.ImmutableList;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The lock classes of a finished run, instances of one class aggregated as lockdep keeps
 * statistics per class, most contended first ({@code kernel/locking/lockdep_proc.c},
 * {@code lock_stat_cmp}; ties by name so the order is stable). Reports print it; the runner
 * builds it.
 */
public record LockStatistics(ImmutableList<LockClassStats> classes) {

  public LockStatistics {
    classes = ImmutableList.copyOf(classes);
  }

  /** The statistics of {@code classes}; instances of the same class name are aggregated. */
  public static LockStatistics of(List<LockClassStats> classes) {
    Map<String, LockClassStats> byClass = new LinkedHashMap<>();
    for (LockClassStats c : classes) {
      byClass.merge(c.className(), c, LockClassStats::plus);
    }
    List<LockClassStats> sorted = new ArrayList<>(byClass.values());
    sorted.sort(Comparator.comparingLong(LockClassStats::contentions).reversed()
        .thenComparing(LockClassStats::className));
    return new LockStatistics(ImmutableList.copyOf(sorted));
  }
}

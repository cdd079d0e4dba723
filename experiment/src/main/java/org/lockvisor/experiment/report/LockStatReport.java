package org.lockvisor.experiment.report;

import com.google.common.collect.ImmutableList;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.lockvisor.experiment.runner.LockClassStats;
import org.lockvisor.experiment.runner.LockStatistics;

/**
 * {@code /proc/lock_stat} as the kernel prints it ({@code kernel/locking/lockdep_proc.c},
 * {@code seq_header} and {@code seq_stats}, format version 0.4): a version line, the header
 * between two rules, then one row per lock class sorted by contentions (most first) with
 * con-bounces, contentions, waittime min/max/total/avg, acq-bounces, acquisitions and holdtime
 * min/max/total/avg, times in microseconds with two decimals; a class that was contended is
 * followed by its contention points (the call sites that waited, with their counts).
 *
 * <p>It prints a finished run's {@link LockStatistics}, whose instances of one class are
 * aggregated, as lockdep does. Classes never acquired are not
 * printed (the kernel prints a class only when its hold time has samples). Addresses are printed
 * as zeros, as the kernel does for a reader without the privilege to see kernel pointers.
 */
public final class LockStatReport {

  /**
   * Width of a rule: the 40-column name, a space, the kernel's 12 columns of 14 plus a space, then
   * lockvisor's {@link #EXTRA_COLUMNS} the same way.
   */
  static final int RULE = 40 + 1 + 12 * (14 + 1) + 2 * (14 + 1);

  /**
   * Columns after the kernel's (kernel/locking/lockdep_proc.c {@code seq_stats} prints 12): the
   * paravirtual events a pv lock's waiters cause, which /proc/lock_stat cannot show — {@code halts}
   * (pv_wait: a waiter halted its vCPU) and {@code kicks} (pv_kick: an unlocker kicked one).
   */
  public static final java.util.List<String> EXTRA_COLUMNS = java.util.List.of("halts", "kicks");

  private final ImmutableList<LockClassStats> classes;

  private LockStatReport(List<LockClassStats> classes) {
    this.classes = ImmutableList.copyOf(classes);
  }

  /** The report of a run's lock statistics. */
  public static LockStatReport of(LockStatistics statistics) {
    return new LockStatReport(statistics.classes());
  }

  /** A report of {@code classes}; instances of the same class name are aggregated. */
  public static LockStatReport of(List<LockClassStats> classes) {
    return of(LockStatistics.of(classes));
  }

  /** The aggregated classes, most contended first. */
  public ImmutableList<LockClassStats> classes() {
    return classes;
  }

  /** The report as the lines of {@code cat /proc/lock_stat}. */
  public List<String> lines() {
    List<String> out = new ArrayList<>();
    out.add("lock_stat version 0.4");
    out.add("-".repeat(RULE));
    out.add(String.format(Locale.ROOT,
        "%40s %14s %14s %14s %14s %14s %14s %14s %14s %14s %14s %14s %14s %14s %14s",
        "class name", "con-bounces", "contentions", "waittime-min", "waittime-max", "waittime-total",
        "waittime-avg", "acq-bounces", "acquisitions", "holdtime-min", "holdtime-max", "holdtime-total",
        "holdtime-avg", EXTRA_COLUMNS.get(0), EXTRA_COLUMNS.get(1)));
    out.add("-".repeat(RULE));
    out.add("");
    for (LockClassStats c : classes) {
      if (c.acquisitions() == 0) {
        continue;
      }
      String name = c.className().length() > 37 ? c.className().substring(0, 37) : c.className();
      StringBuilder row = new StringBuilder();
      row.append(String.format(Locale.ROOT, "%40s:", name));
      row.append(String.format(Locale.ROOT, "%14d ", c.conBounces()));
      lockTime(row, c.contentions(), c.waitMinNs(), c.waitMaxNs(), c.waitTotalNs());
      row.append(String.format(Locale.ROOT, " %14d ", c.acqBounces()));
      lockTime(row, c.acquisitions(), c.holdMinNs(), c.holdMaxNs(), c.holdTotalNs());
      row.append(String.format(Locale.ROOT, " %14d %14d", c.halts(), c.kicks()));
      out.add(row.toString());
      if (c.contentions() == 0 || c.points().isEmpty()) {
        continue;
      }
      out.add(" ".repeat(40 - name.length()) + "-".repeat(name.length()));
      for (LockClassStats.ContentionPoint p : c.points()) {
        out.add(String.format(Locale.ROOT, "%40s %14d %29s %s", name, p.count(), "[<0000000000000000>]",
            p.symbol()));
      }
      out.add("");
      out.add(".".repeat(RULE));
      out.add("");
    }
    return out;
  }

  /** The report as one string with a trailing newline. */
  public String text() {
    return String.join("\n", lines()) + "\n";
  }

  /** seq_lock_time: the count, then min, max, total and average as times. */
  private static void lockTime(StringBuilder row, long nr, long min, long max, long total) {
    row.append(String.format(Locale.ROOT, "%14d", nr));
    time(row, min);
    time(row, max);
    time(row, total);
    time(row, nr == 0 ? 0 : total / nr);
  }

  /** snprint_time: ns as microseconds with two decimals, rounded to the nearest 10 ns. */
  static String time(long ns) {
    long rounded = ns + 5;
    return (rounded / 1000) + "." + String.format(Locale.ROOT, "%02d", (rounded % 1000) / 10);
  }

  private static void time(StringBuilder row, long ns) {
    row.append(String.format(Locale.ROOT, " %14s", time(ns)));
  }
}

package org.lockvisor.reports;

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
 * <p>A class taken both shared and exclusive (an rwlock, an rwsem) prints a {@code -W} line with
 * its write-side figures and a {@code -R} line with its read side, a class taken only shared one
 * {@code -R} line, as {@code seq_stats} does from lockdep's {@code read_}/{@code write_}
 * statistics.
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
      if (!c.hasReads()) {
        out.add(row(String.format(Locale.ROOT, "%40s:", name), c, c.halts(), c.kicks()));
      } else {
        // seq_stats: "%38s-W:" then "%38s-R:" (only "-R" when the class was never taken exclusive)
        String sideName = name.length() > 36 ? name.substring(0, 36) : name;
        boolean first = true;
        if (c.writes() != null && c.writes().acquisitions() > 0) {
          out.add(row(String.format(Locale.ROOT, "%38s-W:", sideName), c.writes(), c.halts(), c.kicks()));
          first = false;
        }
        out.add(row(String.format(Locale.ROOT, "%38s-R:", sideName), c.reads(), first ? c.halts() : 0,
            first ? c.kicks() : 0));
      }
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

  /** One seq_stats line: con-bounces, wait times, acq-bounces, hold times, then halts and kicks. */
  private static String row(String label, LockClassStats c, long halts, long kicks) {
    StringBuilder row = new StringBuilder(label);
    row.append(String.format(Locale.ROOT, "%14d ", c.conBounces()));
    lockTime(row, c.contentions(), c.waitMinNs(), c.waitMaxNs(), c.waitTotalNs());
    row.append(String.format(Locale.ROOT, " %14d ", c.acqBounces()));
    lockTime(row, c.acquisitions(), c.holdMinNs(), c.holdMaxNs(), c.holdTotalNs());
    row.append(String.format(Locale.ROOT, " %14d %14d", halts, kicks));
    return row.toString();
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

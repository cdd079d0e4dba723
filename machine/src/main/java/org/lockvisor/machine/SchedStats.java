package org.lockvisor.machine;

import com.google.common.collect.ImmutableMap;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Scheduler statistics of one kernel (one level of the machine: the host, or one guest):
 * migrations by {@link MigrationCause}, and the time-weighted distribution of runqueue lengths
 * ({@code nr_running}: queued tasks plus the current one) over its CPUs, as {@code
 * /proc/schedstat} and {@code sched_debug} let one derive. Schedulers report changes; reading
 * allocates, recording does not.
 */
public final class SchedStats {
  /** Lengths 0 .. MAX_LENGTH - 1 have their own bucket; longer ones share the last. */
  public static final int MAX_LENGTH = 16;

  private final long[] migrations = new long[MigrationCause.values().length];
  private final long[] nsAtLength = new long[MAX_LENGTH + 1];
  private int[] length = new int[0];
  private long[] since = new long[0];
  private long maxLength;

  /** Sizes the per-CPU state (the kernel's CPU count), so idle CPUs count from the start. */
  public void ensureCpus(int cpus) {
    if (length.length < cpus) {
      length = Arrays.copyOf(length, cpus);
      since = Arrays.copyOf(since, cpus);
    }
  }

  public void migrated(MigrationCause cause) {
    migrations[cause.ordinal()]++;
  }

  public long migrations(MigrationCause cause) {
    return migrations[cause.ordinal()];
  }

  public long migrations() {
    long n = 0;
    for (long m : migrations) {
      n += m;
    }
    return n;
  }

  /** {@code cpu}'s nr_running became {@code n} at {@code now}. */
  public void nrRunning(int cpu, int n, long now) {
    if (cpu >= length.length) {
      ensureCpus(cpu + 1);
    }
    int old = length[cpu];
    if (old == n) {
      return;
    }
    nsAtLength[Math.min(old, MAX_LENGTH)] += now - since[cpu];
    since[cpu] = now;
    length[cpu] = n;
    if (n > maxLength) {
      maxLength = n;
    }
  }

  /**
   * Share of CPU time (over all CPUs of the kernel) spent at each runqueue length up to {@code
   * now}, keyed {@code "0"}, {@code "1"}, ... {@code "16+"}; lengths never seen are left out.
   */
  public Map<String, Double> lengthShares(long now) {
    long[] ns = nsAtLength.clone();
    for (int c = 0; c < length.length; c++) {
      ns[Math.min(length[c], MAX_LENGTH)] += now - since[c];
    }
    long total = 0;
    for (long v : ns) {
      total += v;
    }
    Map<String, Double> out = new LinkedHashMap<>();
    for (int i = 0; i <= MAX_LENGTH; i++) {
      if (ns[i] > 0 && total > 0) {
        out.put(i == MAX_LENGTH ? MAX_LENGTH + "+" : Integer.toString(i), (double) ns[i] / total);
      }
    }
    return out;
  }

  /** Mean nr_running per CPU, time-weighted, up to {@code now}. */
  public double meanLength(long now) {
    long[] ns = nsAtLength.clone();
    for (int c = 0; c < length.length; c++) {
      ns[Math.min(length[c], MAX_LENGTH)] += now - since[c];
    }
    double total = 0;
    double weighted = 0;
    for (int i = 0; i <= MAX_LENGTH; i++) {
      total += ns[i];
      weighted += (double) i * ns[i];
    }
    return total == 0 ? 0 : weighted / total;
  }

  /** The longest runqueue seen since the last reset. */
  public long maxLength() {
    return maxLength;
  }

  /** Migration counts keyed by cause, in enum order. */
  public ImmutableMap<String, Long> migrationsByCause() {
    ImmutableMap.Builder<String, Long> b = ImmutableMap.builder();
    for (MigrationCause c : MigrationCause.values()) {
      b.put(c.key(), migrations[c.ordinal()]);
    }
    return b.buildOrThrow();
  }

  /** End of warm-up: counts restart; current lengths are kept. */
  public void reset(long now) {
    Arrays.fill(migrations, 0);
    Arrays.fill(nsAtLength, 0);
    Arrays.fill(since, now);
    maxLength = 0;
    for (int l : length) {
      maxLength = Math.max(maxLength, l);
    }
  }
}

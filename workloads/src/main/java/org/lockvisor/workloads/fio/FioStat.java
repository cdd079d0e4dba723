package org.lockvisor.workloads.fio;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * One of fio's running statistics ({@code struct io_stat}), optionally with its latency histogram
 * ({@code io_u_plat}), kept as fio 3.33 keeps them so its JSON reads as fio's: {@code add_stat}'s
 * running mean and sum of squared deviations (Welford), {@code calc_lat}'s sample standard
 * deviation, and {@code stat.c}'s bucketing ({@code plat_val_to_idx}: 6 bits per power-of-two
 * group, 29 groups, 1856 buckets, each reported as the middle of its range by {@code
 * plat_idx_to_val}) from which {@code calc_clat_percentiles} reads percentiles and json+ prints
 * {@code bins}. Recording allocates nothing after the first sample.
 */
final class FioStat {
  /** fio's {@code FIO_IO_U_PLAT_BITS}. */
  static final int PLAT_BITS = 6;
  /** fio's {@code FIO_IO_U_PLAT_VAL}. */
  static final int PLAT_VAL = 1 << PLAT_BITS;
  /** fio's {@code FIO_IO_U_PLAT_NR} ({@code FIO_IO_U_PLAT_GROUP_NR} 29 groups). */
  static final int PLAT_NR = 29 * PLAT_VAL;

  private final boolean histogram;
  /** The histogram, allocated at the first sample (a direction fio reports but never sees stays small). */
  private long[] plat;
  private long samples;
  private long min = Long.MAX_VALUE;
  private long max;
  private double mean;
  private double s;

  /** @param histogram whether to keep the latency histogram (latencies) or not (bandwidth samples) */
  FioStat(boolean histogram) {
    this.histogram = histogram;
  }

  void add(long value) {
    long v = Math.max(0, value);
    samples++;
    double delta = v - mean;
    mean += delta / samples;
    s += delta * (v - mean);
    min = Math.min(min, v);
    max = Math.max(max, v);
    if (histogram) {
      long[] p = plat;
      if (p == null) {
        p = new long[PLAT_NR];
        plat = p;
      }
      p[index(v)]++;
    }
  }

  void reset() {
    samples = 0;
    min = Long.MAX_VALUE;
    max = 0;
    mean = 0;
    s = 0;
    if (plat != null) {
      Arrays.fill(plat, 0);
    }
  }

  long samples() {
    return samples;
  }

  long min() {
    return samples == 0 ? 0 : min;
  }

  long max() {
    return samples == 0 ? 0 : max;
  }

  double mean() {
    return mean;
  }

  /** {@code calc_lat}: the sample standard deviation, 0 for fewer than two samples. */
  double stddev() {
    return samples < 2 ? 0 : Math.sqrt(s / (samples - 1));
  }

  /** {@code plat_val_to_idx}. */
  static int index(long val) {
    int msb = val == 0 ? 0 : 63 - Long.numberOfLeadingZeros(val);
    if (msb <= PLAT_BITS) {
      return (int) val;
    }
    int errorBits = msb - PLAT_BITS;
    int base = (errorBits + 1) << PLAT_BITS;
    int offset = (int) ((PLAT_VAL - 1) & (val >> errorBits));
    return Math.min(base + offset, PLAT_NR - 1);
  }

  /** {@code plat_idx_to_val}: the middle of the bucket's range. */
  static long value(int idx) {
    if (idx < (PLAT_VAL << 1)) {
      return idx;
    }
    int errorBits = (idx >> PLAT_BITS) - 1;
    long base = 1L << (errorBits + PLAT_BITS);
    int k = idx % PLAT_VAL;
    return base + (long) ((k + 0.5) * (1L << errorBits));
  }

  /**
   * {@code add_ddir_lat_json}: {@code min}, {@code max}, {@code mean}, {@code stddev}, {@code N},
   * and, when {@code percentiles} and there are samples, {@code percentile} (keys {@code "%f"})
   * and json+'s {@code bins} (bucket value to count, non-empty buckets only).
   */
  Map<String, Object> json(double[] percentiles) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("min", min());
    m.put("max", max());
    m.put("mean", mean);
    m.put("stddev", stddev());
    m.put("N", samples);
    if (percentiles != null && samples > 0 && plat != null) {
      Map<String, Object> p = new LinkedHashMap<>();
      long[] values = percentiles(percentiles);
      for (int i = 0; i < percentiles.length; i++) {
        p.put(percentileKey(percentiles[i]), values[i]);
      }
      m.put("percentile", p);
      Map<String, Object> bins = new LinkedHashMap<>();
      for (int i = 0; i < PLAT_NR; i++) {
        if (plat[i] != 0) {
          bins.put(Long.toString(value(i)), plat[i]);
        }
      }
      m.put("bins", bins);
    }
    return m;
  }

  /** fio's key of a percentile, {@code "%f"} (e.g. {@code 99.900000}); the few in use are formatted once. */
  private static String percentileKey(double p) {
    return PERCENTILE_KEYS.computeIfAbsent(p, v -> String.format(Locale.ROOT, "%f", v));
  }

  private static final java.util.concurrent.ConcurrentHashMap<Double, String> PERCENTILE_KEYS =
      new java.util.concurrent.ConcurrentHashMap<>();

  /** {@code calc_clat_percentiles}: the first bucket whose running sum reaches p % of the samples. */
  long[] percentiles(double[] list) {
    long[] out = new long[list.length];
    if (plat == null) {
      return out; // no sample: every percentile is bucket 0, value 0
    }
    long sum = 0;
    int j = 0;
    for (int i = 0; i < PLAT_NR && j < list.length; i++) {
      sum += plat[i];
      while (j < list.length && sum >= list[j] / 100.0 * samples) {
        out[j++] = value(i);
      }
    }
    return out;
  }
}

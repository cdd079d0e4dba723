package org.lockvisor.reports;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One number format for every value of a table column (or of one quantity across variants), so
 * that a column never reads {@code 130000 | 63000 | 1.207e+05}: integers with thousands separators
 * when every value is whole, otherwise fixed decimals, as many as give the smallest non-zero value
 * three significant digits (at most four). Never scientific notation.
 */
public final class NumberColumns {

  private static final int MAX_DECIMALS = 4;

  private NumberColumns() {}

  /** Each value in the column's format; {@code null} or NaN prints as {@code -}. */
  public static List<String> format(List<? extends Number> values) {
    int decimals = decimals(values);
    String pattern = "%,." + decimals + "f";
    List<String> out = new ArrayList<>(values.size());
    for (Number v : values) {
      out.add(v == null || Double.isNaN(v.doubleValue()) ? "-" : String.format(Locale.ROOT, pattern, v.doubleValue()));
    }
    return out;
  }

  /** The decimals {@link #format} uses for {@code values}. */
  static int decimals(List<? extends Number> values) {
    double smallest = Double.MAX_VALUE;
    boolean whole = true;
    for (Number n : values) {
      if (n == null || Double.isNaN(n.doubleValue())) {
        continue;
      }
      double v = Math.abs(n.doubleValue());
      if (v != Math.rint(v)) {
        whole = false;
      }
      if (v > 0) {
        smallest = Math.min(smallest, v);
      }
    }
    if (whole || smallest == Double.MAX_VALUE) {
      return 0;
    }
    int d = 2 - (int) Math.floor(Math.log10(smallest));
    return Math.max(0, Math.min(MAX_DECIMALS, d));
  }

  /** Units of an amount that a {@code _s} after them makes a rate: {@code bw_kib_s}, {@code rx_bytes_s}. */
  private static final String[][] RATES = {{"kib", "KiB"}, {"mib", "MiB"}, {"gib", "GiB"}, {"kb", "kB"},
      {"mb", "MB"}, {"gb", "GB"}, {"bytes", "bytes"}, {"ios", "IO"}, {"ops", "ops"}};

  /**
   * The unit of a figure named with a unit suffix, as the workloads name them ({@code total_time_s},
   * {@code lat_p99_us}, {@code acquisitions_per_s}, {@code throughput_gbps}); {@code ""} when the
   * name has none.
   */
  public static String unitOf(String figure) {
    String f = figure.toLowerCase(Locale.ROOT);
    if (f.endsWith("_per_s") || f.endsWith("_per_sec")) {
      return "1/s";
    }
    // a rate of a quantity with its own unit: bw_kib_s is KiB/s, not seconds
    for (String[] rate : RATES) {
      if (f.endsWith("_" + rate[0] + "_s") || f.endsWith("_" + rate[0] + "_per_s") || f.equals(rate[0] + "_s")) {
        return rate[1] + "/s";
      }
    }
    if (f.endsWith("_gbps")) {
      return "Gbit/s";
    }
    if (f.endsWith("_mbps")) {
      return "Mbit/s";
    }
    if (f.endsWith("_iops") || f.equals("iops")) {
      return "IO/s";
    }
    if (f.endsWith("_percent") || f.endsWith("_pct") || f.endsWith("percent")) {
      return "%";
    }
    if (f.endsWith("_ns")) {
      return "ns";
    }
    if (f.endsWith("_us")) {
      return "us";
    }
    if (f.endsWith("_ms")) {
      return "ms";
    }
    if (f.endsWith("_s") || f.endsWith("_sec")) {
      return "s";
    }
    if (f.endsWith("_bytes")) {
      return "bytes";
    }
    return "";
  }
}

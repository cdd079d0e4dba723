package org.lockvisor.studies.envelope;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.Arrays;

/**
 * The spread of one simulated quantity over an envelope's samples: min, quartiles and max (the
 * quartiles by linear interpolation between order statistics, R's type 7), and whether a
 * published value lies inside [min, max].
 */
public record Spread(int n, double min, double q1, double median, double q3, double max) {

  public Spread {
    checkArgument(n >= 1, "a spread needs at least one value");
    checkArgument(min <= q1 && q1 <= median && median <= q3 && q3 <= max, "quantiles out of order");
  }

  /** The spread of {@code values} (finite values only; at least one). */
  public static Spread of(double[] values) {
    double[] v = Arrays.stream(values).filter(Double::isFinite).sorted().toArray();
    checkArgument(v.length > 0, "no finite value to summarise");
    return new Spread(v.length, v[0], quantile(v, 0.25), quantile(v, 0.5), quantile(v, 0.75), v[v.length - 1]);
  }

  /** Whether {@code published} lies within the simulated range. */
  public boolean contains(double published) {
    return published >= min && published <= max;
  }

  private static double quantile(double[] sorted, double p) {
    double h = (sorted.length - 1) * p;
    int lo = (int) Math.floor(h);
    int hi = Math.min(sorted.length - 1, lo + 1);
    return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
  }
}

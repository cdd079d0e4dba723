package org.lockvisor.experiment.runner;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * Mean and 95 % confidence interval of replicated figures (Student t, two-sided): half-width =
 * t(0.975, n-1) x s / sqrt(n). With one replication the interval is unknown (NaN).
 */
public final class Statistics {

  /** t(0.975, df) for df = 1..30 (standard tables). */
  private static final double[] T975 = {
      12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
      2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
      2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};

  private Statistics() {}

  /** A mean with its 95 % half-width and sample size. */
  public record Estimate(double mean, double ci95, int n) {}

  /** t(0.975, df); above 30 degrees of freedom, interpolated in 1/df towards 1.960 (within 0.3 %). */
  public static double t975(int df) {
    checkArgument(df >= 1, "degrees of freedom must be positive: %s", df);
    if (df <= T975.length) {
      return T975[df - 1];
    }
    return 1.960 + (T975[29] - 1.960) * 30.0 / df;
  }

  public static Estimate estimate(double[] values) {
    int n = values.length;
    if (n == 0) {
      return new Estimate(Double.NaN, Double.NaN, 0);
    }
    double sum = 0;
    for (double v : values) {
      sum += v;
    }
    double mean = sum / n;
    if (n == 1) {
      return new Estimate(mean, Double.NaN, 1);
    }
    double squares = 0;
    for (double v : values) {
      squares += (v - mean) * (v - mean);
    }
    double sd = Math.sqrt(squares / (n - 1));
    return new Estimate(mean, t975(n - 1) * sd / Math.sqrt(n), n);
  }
}

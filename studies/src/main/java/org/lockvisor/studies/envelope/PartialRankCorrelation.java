package org.lockvisor.studies.envelope;

import static com.google.common.base.Preconditions.checkArgument;

import org.apache.commons.math3.stat.correlation.PearsonsCorrelation;
import org.apache.commons.math3.stat.ranking.NaturalRanking;
import org.apache.commons.math3.stat.ranking.TiesStrategy;
import org.apache.commons.math3.stat.regression.OLSMultipleLinearRegression;

/**
 * Partial rank correlation coefficients (PRCC; Marino, Hogue, Ray and Kirschner, "A methodology for
 * performing global uncertainty and sensitivity analysis in systems biology", J. Theor. Biol. 254,
 * 2008): for each parameter, the correlation between the ranks of the parameter and of the output
 * after the linear effect of the other parameters' ranks is removed from both. It measures a
 * monotone influence of one parameter with the others held, in [-1, 1]. Computed with Commons
 * Math (average ranks for ties, least squares, Pearson).
 */
public final class PartialRankCorrelation {

  private PartialRankCorrelation() {}

  /**
   * The PRCC of each column of {@code x} (n samples by k parameters) with {@code y}; {@code NaN}
   * for a parameter that does not vary or when there are too few samples (n must exceed k + 1).
   */
  public static double[] of(double[][] x, double[] y) {
    int n = y.length;
    checkArgument(n == x.length, "x has %s rows, y %s values", x.length, n);
    int k = n == 0 ? 0 : x[0].length;
    double[] out = new double[k];
    if (n <= k + 1) {
      java.util.Arrays.fill(out, Double.NaN);
      return out;
    }
    NaturalRanking ranking = new NaturalRanking(TiesStrategy.AVERAGE);
    double[][] rx = new double[k][];
    for (int j = 0; j < k; j++) {
      double[] col = new double[n];
      for (int i = 0; i < n; i++) {
        col[i] = x[i][j];
      }
      rx[j] = ranking.rank(col);
    }
    double[] ry = ranking.rank(y.clone());
    for (int col = 0; col < k; col++) {
      final int j = col;
      if (constant(rx[j]) || constant(ry)) {
        out[j] = Double.NaN;
        continue;
      }
      // the other parameters that vary (a constant column would make the regression singular)
      int[] vary = java.util.stream.IntStream.range(0, k).filter(m -> m != j && !constant(rx[m])).toArray();
      double[][] others = new double[n][vary.length];
      for (int i = 0; i < n; i++) {
        for (int c = 0; c < vary.length; c++) {
          others[i][c] = rx[vary[c]][i];
        }
      }
      double[] ex = residuals(rx[j], others);
      double[] ey = residuals(ry, others);
      out[j] = constant(ex) || constant(ey) ? Double.NaN : new PearsonsCorrelation().correlation(ex, ey);
    }
    return out;
  }

  /** {@code y} less its least-squares fit on {@code x} (with an intercept); {@code y} less its mean if x is empty. */
  private static double[] residuals(double[] y, double[][] x) {
    if (x[0].length == 0) {
      double mean = java.util.Arrays.stream(y).average().orElse(0);
      return java.util.Arrays.stream(y).map(v -> v - mean).toArray();
    }
    OLSMultipleLinearRegression ols = new OLSMultipleLinearRegression();
    ols.newSampleData(y.clone(), x);
    return ols.estimateResiduals();
  }

  private static boolean constant(double[] v) {
    for (double d : v) {
      if (Math.abs(d - v[0]) > 1e-12 * Math.max(1, Math.abs(v[0]))) {
        return false;
      }
    }
    return true;
  }
}

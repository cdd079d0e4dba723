package org.lockvisor.studies.envelope;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The envelope's arithmetic: a Latin hypercube puts exactly one sample in each stratum of every
 * dimension and is a function of its seed; a log range spreads samples evenly over its decades;
 * PRCC finds a monotone influence (linear or not) and ignores a parameter that has none; a spread
 * is the order statistics of its values.
 */
class EnvelopeMathTest {

  private static final Dimension A = new Dimension.Continuous("a", 0, 10, false, "test");
  private static final Dimension B = new Dimension.Continuous("b", 1, 1000, true, "test");
  private static final Dimension C = new Dimension.Choice("c", List.of("x", "y", "z", "w"), "test");

  @Test
  void latinHypercube_eachStratumOfEachDimensionHoldsOneSample() {
    int n = 32;
    var samples = LatinHypercube.sample(List.of(A, B, C), n, 7);
    for (int d = 0; d < 3; d++) {
      boolean[] seen = new boolean[n];
      for (var s : samples) {
        int stratum = (int) Math.floor(s.unit().get(d) * n);
        assertThat(seen[stratum]).as("dimension %s stratum %s twice", d, stratum).isFalse();
        seen[stratum] = true;
      }
    }
    // a choice of 4 values over 32 samples: each value exactly 8 times
    assertThat(samples.stream().filter(s -> s.values().get("c").equals("z")).count()).isEqualTo(8);
  }

  @Test
  void latinHypercube_sameSeedSameSamples_otherSeedOthers() {
    assertThat(LatinHypercube.sample(List.of(A, B), 16, 3)).isEqualTo(LatinHypercube.sample(List.of(A, B), 16, 3));
    assertThat(LatinHypercube.sample(List.of(A, B), 16, 3)).isNotEqualTo(LatinHypercube.sample(List.of(A, B), 16, 4));
  }

  @Test
  void logRange_spreadsSamplesEvenlyOverItsDecades() {
    var samples = LatinHypercube.sample(List.of(B), 30, 11);
    long belowTen = samples.stream().filter(s -> s.numbers().get(0) < 10).count();
    long aboveHundred = samples.stream().filter(s -> s.numbers().get(0) >= 100).count();
    assertThat(belowTen).isEqualTo(10);
    assertThat(aboveHundred).isEqualTo(10);
  }

  @Test
  void wholeRange_coversEveryValueOnce_whenSamplesEqualValues() {
    var w = new Dimension.Whole("w", 1, 8, false, "test");
    var samples = LatinHypercube.sample(List.of(w), 8, 5);
    assertThat(samples.stream().map(s -> s.values().get("w")).sorted().toList())
        .containsExactly("1", "2", "3", "4", "5", "6", "7", "8");
  }

  @Test
  void prcc_findsMonotoneInfluence_andNoneWhereThereIsNone() {
    SplittableRandom r = new SplittableRandom(1);
    int n = 200;
    double[][] x = new double[n][3];
    double[] y = new double[n];
    for (int i = 0; i < n; i++) {
      x[i][0] = r.nextDouble();
      x[i][1] = r.nextDouble();
      x[i][2] = r.nextDouble();
      // strongly increasing in x0 (not linearly), decreasing in x2, nothing in x1
      y[i] = Math.exp(4 * x[i][0]) - 20 * x[i][2] + 0.5 * r.nextGaussian();
    }
    double[] prcc = PartialRankCorrelation.of(x, y);
    assertThat(prcc[0]).isGreaterThan(0.9);
    assertThat(Math.abs(prcc[1])).isLessThan(0.2);
    assertThat(prcc[2]).isLessThan(-0.7);
  }

  @Test
  void prcc_constantParameter_isNaN_andTooFewSamplesAreNaN() {
    double[][] x = {{1, 0}, {1, 1}, {1, 2}, {1, 3}, {1, 4}};
    double[] y = {0, 1, 2, 3, 5};
    double[] prcc = PartialRankCorrelation.of(x, y);
    assertThat(prcc[0]).isNaN();
    assertThat(prcc[1]).isCloseTo(1.0, within(1e-9));
    assertThat(PartialRankCorrelation.of(new double[][] {{1, 2}, {2, 1}}, new double[] {1, 2})).containsOnly(Double.NaN);
  }

  @Test
  void spread_isTheOrderStatistics() {
    Spread s = Spread.of(new double[] {5, 1, 3, 2, 4, Double.NaN});
    assertThat(s.n()).isEqualTo(5);
    assertThat(s.min()).isEqualTo(1);
    assertThat(s.q1()).isEqualTo(2);
    assertThat(s.median()).isEqualTo(3);
    assertThat(s.q3()).isEqualTo(4);
    assertThat(s.max()).isEqualTo(5);
    assertThat(s.contains(4.5)).isTrue();
    assertThat(s.contains(5.5)).isFalse();
  }
}

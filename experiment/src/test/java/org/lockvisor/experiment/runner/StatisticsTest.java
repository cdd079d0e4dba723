package org.lockvisor.experiment.runner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;
import org.lockvisor.experiment.model.SweepPoints;

/** Student-t intervals against hand-computed values; derived seeds are distinct and stable. */
class StatisticsTest {

  @Test
  void estimate_threeValues_tWithTwoDegreesOfFreedom() {
    Statistics.Estimate e = Statistics.estimate(new double[] {1, 2, 3});

    assertThat(e.mean()).isEqualTo(2.0);
    // s = 1, t(0.975, 2) = 4.303: 4.303 / sqrt(3)
    assertThat(e.ci95()).isCloseTo(2.4843, within(1e-3));
    assertThat(e.n()).isEqualTo(3);
  }

  @Test
  void estimate_oneValue_intervalUnknown_constantValues_intervalZero() {
    assertThat(Statistics.estimate(new double[] {5}).ci95()).isNaN();
    assertThat(Statistics.estimate(new double[] {5, 5, 5, 5}).ci95()).isZero();
  }

  @Test
  void t975_largeSamples_approachNormalQuantile() {
    assertThat(Statistics.t975(30)).isEqualTo(2.042);
    assertThat(Statistics.t975(60)).isBetween(2.000, 2.001 + 0.005);
    assertThat(Statistics.t975(100_000)).isCloseTo(1.960, within(1e-3));
  }

  @Test
  void seeds_differAcrossPointsAndReplications_andAreStable() {
    long a = SweepPoints.seed(1, 0, 0);
    assertThat(a).isEqualTo(SweepPoints.seed(1, 0, 0))
        .isNotEqualTo(SweepPoints.seed(1, 0, 1))
        .isNotEqualTo(SweepPoints.seed(1, 1, 0))
        .isNotEqualTo(SweepPoints.seed(2, 0, 0));
    assertThat(SweepPoints.seed(1, 0, 1)).isNotEqualTo(SweepPoints.seed(1, 1, 0));
  }
}

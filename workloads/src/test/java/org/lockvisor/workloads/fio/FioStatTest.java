package org.lockvisor.workloads.fio;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * fio's io_stat with its latency histogram: an empty one (a direction the job never issued)
 * reports fio's zeros without a histogram, and the histogram that comes with the first sample
 * gives calc_clat_percentiles' buckets.
 */
class FioStatTest {

  private static final double[] PERCENTILES = {50.0, 99.0};

  @Test
  void json_noSample_zerosAndNoPercentiles() {
    FioStat s = new FioStat(true);
    Map<String, Object> m = s.json(PERCENTILES);
    assertThat(m).containsEntry("min", 0L).containsEntry("max", 0L).containsEntry("N", 0L)
        .doesNotContainKeys("percentile", "bins");
    assertThat(s.percentiles(PERCENTILES)).containsExactly(0, 0);
  }

  @Test
  void percentiles_samplesAfterEmpty_bucketsOfTheSamples() {
    FioStat s = new FioStat(true);
    for (long v = 1; v <= 100; v++) { // values below 128 have buckets of their own
      s.add(v);
    }
    assertThat(s.percentiles(PERCENTILES)).containsExactly(50L, 99L);
    s.reset();
    assertThat(s.percentiles(PERCENTILES)).containsExactly(0, 0);
    s.add(7);
    assertThat(s.percentiles(PERCENTILES)).containsExactly(7L, 7L);
    assertThat(s.json(PERCENTILES)).containsKeys("percentile", "bins");
  }
}

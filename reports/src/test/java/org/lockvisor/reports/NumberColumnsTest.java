package org.lockvisor.reports;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * One number format per column: every value of a column gets the same decimals (three significant
 * digits for its smallest non-zero value, whole numbers without decimals), thousands separators,
 * never scientific notation; a missing value prints as {@code -}. Units come from figure names.
 */
class NumberColumnsTest {

  @Test
  void mixedMagnitudes_shareOneFormat_neverScientific() {
    assertThat(NumberColumns.format(Arrays.asList(130000.0, 63000.0, 120700.4)))
        .containsExactly("130,000", "63,000", "120,700");
    assertThat(NumberColumns.format(Arrays.asList(17.4, 4.0))).containsExactly("17.40", "4.00");
    assertThat(NumberColumns.format(Arrays.asList(0.0987, 12.5))).containsExactly("0.0987", "12.5000");
    assertThat(NumberColumns.format(Arrays.asList(1.2e-9, 3.0))).containsExactly("0.0000", "3.0000");
  }

  @Test
  void wholeNumbers_missingValues_andZeros() {
    assertThat(NumberColumns.format(Arrays.asList(1877L, 0L, null, Double.NaN))).containsExactly("1,877", "0", "-", "-");
    assertThat(NumberColumns.format(Arrays.asList(0.0, 0.0))).containsExactly("0", "0");
  }

  @Test
  void unitOf_readsTheFiguresSuffix() {
    assertThat(NumberColumns.unitOf("acquisitions_per_s")).isEqualTo("1/s");
    assertThat(NumberColumns.unitOf("total_time_s")).isEqualTo("s");
    assertThat(NumberColumns.unitOf("lat_p99_us")).isEqualTo("us");
    assertThat(NumberColumns.unitOf("runtime_ns")).isEqualTo("ns");
    assertThat(NumberColumns.unitOf("throughput_gbps")).isEqualTo("Gbit/s");
    assertThat(NumberColumns.unitOf("acquisitions")).isEmpty();
    // fio's bandwidth is KiB per second, not seconds (report.html said "s")
    assertThat(NumberColumns.unitOf("bw_kib_s")).isEqualTo("KiB/s");
    assertThat(NumberColumns.unitOf("rx_bytes_s")).isEqualTo("bytes/s");
  }
}

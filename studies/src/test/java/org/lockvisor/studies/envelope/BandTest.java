package org.lockvisor.studies.envelope;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * Property: a band is met exactly when the simulated value lies between its ends; its distance is
 * zero inside and grows with the miss relative to the band's width; only a baseline figure can be
 * a calibration target; a result judges each band once.
 */
class BandTest {

  @Test
  void met_insideAndAtTheEnds_notOutside() {
    Band b = Band.heldOut("arm64.nj4.ratio", "ratio", "ratio", 2.3, 2.0, 3.0, 2.0);
    assertThat(b.met()).isTrue();
    assertThat(b.withSimulated(3.0).met()).isTrue();
    assertThat(b.withSimulated(3.01).met()).isFalse();
    assertThat(b.withSimulated(1.5).met()).isFalse();
  }

  @Test
  void distance_zeroInside_relativeToWidthOutside() {
    Band b = Band.baseline("iops", "baseline IOPS", 100, 70, 130, 100);
    assertThat(b.distance(100)).isZero();
    assertThat(b.distance(160)).isEqualTo(0.5);
    assertThat(b.distance(40)).isEqualTo(0.5);
  }

  @Test
  void distance_oneSidedBand_relativeToItsEnd() {
    Band b = Band.baseline("osq", "osq_lock %", 18.09, 9, Double.POSITIVE_INFINITY, 20);
    assertThat(b.distance(4.5)).isEqualTo(0.5);
    assertThat(b.distance(1000)).isZero();
  }

  @Test
  void baselineOnly_onAPatchedColumn_refused() {
    assertThatThrownBy(() -> new Band("k", "q", "patched", 1, 0, 2, 1, true))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("baseline");
    assertThatThrownBy(() -> Band.heldOut("k", "q", "baseline", 1, 0, 2, 1))
        .isInstanceOf(IllegalArgumentException.class);
  }
}

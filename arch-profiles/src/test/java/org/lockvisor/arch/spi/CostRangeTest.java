package org.lockvisor.arch.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.lockvisor.arch.spi.Cost.Confidence;
import org.lockvisor.arch.spi.Cost.Range;

/**
 * Property: an estimate's range is read once from its reference (the first low-high pair, thousands
 * grouped or not), only estimates carry one, and a range is well formed.
 */
class CostRangeTest {

  @Test
  void estimate_withParenthesisedRange_hasThatRange() {
    Cost c = Cost.of(CostKey.IPI_SEND, 500, Confidence.E, "estimate 500 (200-1000): SIGP external call");
    assertThat(c.range()).contains(new Range(200, 1000));
    assertThat(c.range().get().spansDecades()).isFalse();
  }

  @Test
  void estimate_withGroupedThousandsAndEnDash_isParsed() {
    assertThat(Cost.Source.parseRange("estimate 10,000 (6,000\u201320,000)")).contains(new Range(6000, 20000));
    assertThat(Cost.Source.parseRange("KERNEL-MODEL §5: 1-5 ns")).contains(new Range(1, 5));
  }

  @Test
  void verifiedSource_withDateLikeText_hasNoRange() {
    Cost c = Cost.of(CostKey.IPI_SEND, 500, Confidence.V, "seed mail 2014-05-30");
    assertThat(c.range()).isEmpty();
  }

  @Test
  void range_spanningADecade_isLogUniformCandidate() {
    assertThat(new Range(1000, 10000).spansDecades()).isTrue();
    assertThat(new Range(1500, 10000).spansDecades()).isFalse();
  }

  @Test
  void range_reversed_isRefused() {
    assertThatThrownBy(() -> new Range(5, 1)).isInstanceOf(IllegalArgumentException.class);
  }
}

package org.lockvisor.reproductions.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.collect.ImmutableList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.studies.envelope.Band;

/** A reproduction's result carries each band once, by key. */
class ReproductionResultTest {

  @Test
  void result_sameBandTwice_refused() {
    Band b = Band.baseline("k", "q", 1, 0, 2, 1);
    ReproductionResult r = ReproductionResult.of("r", true, "ok", List.of(), Map.of());
    assertThat(r.bands()).isEmpty();
    assertThat(r.withBands(List.of(b)).bands()).containsExactly(b);
    assertThatThrownBy(() -> r.withBands(ImmutableList.of(b, b))).hasMessageContaining("[k] twice");
  }
}

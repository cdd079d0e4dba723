package org.lockvisor.reproductions.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.core.plugin.UnknownPluginException;

/** Reproduction value types validate their input; the registry chooses by name with suggestions. */
class ReproductionModelTest {

  @Test
  void result_metricsSortedByKey() {
    Map<String, Double> metrics = new LinkedHashMap<>();
    metrics.put("zeta", 1.0);
    metrics.put("alpha", 2.0);

    assertThat(ReproductionResult.of("r1", true, "ok", List.of(), metrics).metrics().keySet())
        .containsExactly("alpha", "zeta");
  }

  @Test
  void result_multiLineHeadline_rejected() {
    assertThatThrownBy(() -> ReproductionResult.of("r1", true, "a\nb", List.of(), Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("headline must be one line");
  }

  @Test
  void result_nonFiniteMetric_rejectedNamingIt() {
    assertThatThrownBy(() -> ReproductionResult.of("r1", true, "ok", List.of(), Map.of("iops", Double.NaN)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("[iops]");
  }

  @Test
  void reproductions_unknownName_didYouMean() {
    Reproductions reproductions = new Reproductions(Map.of("fake-repro", new FakeReproduction()));

    assertThatThrownBy(() -> reproductions.choose("fake-rpro"))
        .isInstanceOf(UnknownPluginException.class)
        .hasMessage("unknown reproduction [fake-rpro]; known: [fake-repro]; did you mean [fake-repro]?");
  }

  @Test
  void reproduction_kindIsReproduction() {
    assertThat(new FakeReproduction().kind()).isEqualTo("reproduction");
  }
}

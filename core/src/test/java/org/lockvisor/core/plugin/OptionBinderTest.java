package org.lockvisor.core.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The one option binder: unknown keys and bad values are all reported in one line with the
 * known keys in declaration order and "did you mean"; values bind to typed, normalized values with
 * the declared defaults; durations take the one documented form.
 */
class OptionBinderTest {
  private static final List<PluginOption> OPTIONS = List.of(
      PluginOption.ofBoolean("optimistic-spin", true, "spin before sleeping"),
      PluginOption.ofInt("depth", 4, 1, 64, "queue depth"),
      PluginOption.ofDuration("window", 5_000_000, 1_000, 1_000_000_000, "dispatch window"),
      PluginOption.ofDouble("share", 0.5, 0, 1, "share"),
      PluginOption.ofEnum("notify-path", "eventfd", "how the guest is notified", "eventfd", "posted"));

  @Test
  void bind_nothingGiven_declaredDefaults() {
    BoundOptions o = OptionBinder.bind("lock test", OPTIONS, Map.of());
    assertThat(o.bool("optimistic-spin")).isTrue();
    assertThat(o.integer("depth")).isEqualTo(4);
    assertThat(o.durationNs("window")).isEqualTo(5_000_000);
    assertThat(o.real("share")).isEqualTo(0.5);
    assertThat(o.choice("notify-path")).isEqualTo("eventfd");
    assertThat(o.isGiven("depth")).isFalse();
  }

  @Test
  void bind_givenValues_typedAndNormalized() {
    BoundOptions o = OptionBinder.bind("lock test", OPTIONS,
        Map.of("optimistic-spin", "FALSE", "window", "1.5ms", "notify-path", "Posted", "depth", " 8 "));
    assertThat(o.bool("optimistic-spin")).isFalse();
    assertThat(o.durationNs("window")).isEqualTo(1_500_000);
    assertThat(o.choice("notify-path")).isEqualTo("posted");
    assertThat(o.integer("depth")).isEqualTo(8);
    assertThat(o.asMap()).containsEntry("window", "1500000").containsEntry("optimistic-spin", "false");
  }

  @Test
  void bind_unknownKeyAndBadValues_oneLineWithEveryProblem() {
    assertThatThrownBy(() -> OptionBinder.bind("lock test", OPTIONS,
        Map.of("optimistc-spin", "false", "depth", "65", "window", "1.5ns")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageNotContaining("\n")
        .hasMessageStartingWith("lock test: ")
        .hasMessageContaining("unknown option [optimistc-spin]; known: [optimistic-spin, depth, window, share,"
            + " notify-path]; did you mean [optimistic-spin]?")
        .hasMessageContaining("option [depth] [65] is out of range; allowed: [1, 64]")
        .hasMessageContaining("option [window] [1.5ns] is not a duration (ns, or a number with ns/us/ms/s)");
  }

  @Test
  void bind_enumTypo_suggestsTheAllowedValue() {
    assertThatThrownBy(() -> OptionBinder.bind("device d", OPTIONS, Map.of("notify-path", "postd")))
        .hasMessageContaining("[postd] is not one of [eventfd, posted]; did you mean [posted]?");
  }

  @Test
  void read_undeclaredOrWrongType_isAPluginBug() {
    BoundOptions o = OptionBinder.bind("lock test", OPTIONS, Map.of());
    assertThatThrownBy(() -> o.bool("nope")).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> o.bool("depth")).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void durations_oneForm_wholeNanosecondsOnly() {
    assertThat(Durations.parse("250")).isEqualTo(250);
    assertThat(Durations.parse("2us")).isEqualTo(2_000);
    assertThat(Durations.parse("1.5s")).isEqualTo(1_500_000_000L);
    assertThat(Durations.parse("0.5ns")).isEqualTo(-1);
    assertThat(Durations.parse("5 min")).isEqualTo(-1);
    assertThat(Durations.format(1_500_000)).isEqualTo("1500us");
  }
}

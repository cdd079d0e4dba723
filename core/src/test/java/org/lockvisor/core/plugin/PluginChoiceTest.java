package org.lockvisor.core.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Choosing by name returns the registered plugin or fails with the known names and a suggestion. */
class PluginChoiceTest {

  private static Map<String, String> locksInBindingOrder() {
    Map<String, String> locks = new LinkedHashMap<>();
    locks.put("ticket", "T");
    locks.put("qspinlock", "Q");
    locks.put("mcs", "M");
    return locks;
  }

  @Test
  void choose_knownName_returnsPlugin() {
    assertThat(PluginChoice.of("lock", locksInBindingOrder()).choose("qspinlock")).isEqualTo("Q");
    assertThat(Plugins.choose(locksInBindingOrder(), "lock", "mcs")).isEqualTo("M");
  }

  @Test
  void choose_typo_unknownPluginExceptionWithSuggestion() {
    assertThatThrownBy(() -> PluginChoice.of("lock", locksInBindingOrder()).choose("qspinlok"))
        .isInstanceOf(UnknownPluginException.class)
        .hasMessage("unknown lock [qspinlok]; known: [mcs, qspinlock, ticket]; did you mean [qspinlock]?")
        .satisfies(e -> {
          UnknownPluginException unknown = (UnknownPluginException) e;
          assertThat(unknown.kind()).isEqualTo("lock");
          assertThat(unknown.name()).isEqualTo("qspinlok");
          assertThat(unknown.known()).containsExactly("mcs", "qspinlock", "ticket");
        });
  }

  @Test
  void choose_null_unknownPluginException() {
    assertThatThrownBy(() -> Plugins.choose(locksInBindingOrder(), "lock", null))
        .isInstanceOf(UnknownPluginException.class)
        .hasMessageStartingWith("unknown lock [null]");
  }

  @Test
  void all_sortedByName() {
    assertThat(PluginChoice.of("lock", locksInBindingOrder()).all().keySet())
        .containsExactly("mcs", "qspinlock", "ticket");
  }

  @Test
  void descriptor_copiesMetadataSorted() {
    PluginDescriptor descriptor = PluginDescriptor.of("widget", new TestPlugins.AlphaWidget());

    assertThat(descriptor.name()).isEqualTo("alpha");
    assertThat(descriptor.capabilities()).containsExactly("fifo", "zeta");
    assertThat(descriptor.options()).extracting(PluginOption::name).containsExactly("fast");
    assertThat(descriptor.version()).isEqualTo("dev");
  }
}

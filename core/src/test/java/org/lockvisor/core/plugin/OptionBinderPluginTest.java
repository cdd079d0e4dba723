package org.lockvisor.core.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * {@link OptionBinder#bind(Plugin, Map)} against a mocked {@link Plugin}: the binder needs of a
 * plugin its kind, name and declared options and nothing else (not its summary, version or
 * capabilities), and labels every problem with the kind and the name. A mock is the right tool:
 * the collaborator is an interface, and what is tested is what the binder asks of it.
 */
class OptionBinderPluginTest {
  private static Plugin plugin() {
    Plugin p = mock(Plugin.class);
    when(p.kind()).thenReturn("lock");
    when(p.name()).thenReturn("my-lock");
    when(p.options()).thenReturn(List.of(
        PluginOption.ofDuration("unit-ns", 500, 1, 1_000_000, "backoff per queue position"),
        PluginOption.ofEnum("backoff", "spin", "how to back off", "spin", "delay")));
    return p;
  }

  @Test
  void bind_mockedPlugin_readsOnlyKindNameAndOptions() {
    Plugin p = plugin();

    BoundOptions o = OptionBinder.bind(p, Map.of("unit-ns", "2us"));

    assertThat(o.durationNs("unit-ns")).isEqualTo(2_000);
    assertThat(o.choice("backoff")).isEqualTo("spin");
    verify(p).options();
    verify(p, never()).summary();
    verify(p, never()).version();
    verify(p, never()).capabilities();
  }

  @Test
  void bind_mockedPlugin_problemsLabelledWithKindAndName() {
    assertThatThrownBy(() -> OptionBinder.bind(plugin(), Map.of("backoff", "sleep", "unit", "1us")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("lock my-lock: ")
        .hasMessageContaining("option [backoff]")
        .hasMessageContaining("[unit]");
  }
}

package org.lockvisor.scheduler.builtin;

import java.util.List;
import java.util.Map;
import org.lockvisor.core.plugin.BoundOptions;
import org.lockvisor.core.plugin.OptionBinder;
import org.lockvisor.core.plugin.PluginOption;

/**
 * The option maps handed to the built-in scheduler factories, bound by the framework's one
 * binder ({@link OptionBinder}: strict keys with "did you mean", typed values, the one duration
 * form of {@link org.lockvisor.core.plugin.Durations}).
 */
final class BuiltinOptions {
  private final BoundOptions bound;

  private BuiltinOptions(BoundOptions bound) {
    this.bound = bound;
  }

  static BuiltinOptions of(String plugin, Map<String, String> values, List<PluginOption> options) {
    return new BuiltinOptions(OptionBinder.bind("scheduler " + plugin, options, values == null ? Map.of() : values));
  }

  /** A duration in ns. */
  long duration(String name) {
    return bound.durationNs(name);
  }

  double decimal(String name) {
    return bound.real(name);
  }

  boolean bool(String name) {
    return bound.bool(name);
  }

  String choice(String name) {
    return bound.choice(name);
  }
}

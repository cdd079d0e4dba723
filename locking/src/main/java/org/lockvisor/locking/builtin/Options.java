package org.lockvisor.locking.builtin;

import java.util.List;
import java.util.Map;
import org.lockvisor.core.plugin.BoundOptions;
import org.lockvisor.core.plugin.OptionBinder;
import org.lockvisor.core.plugin.PluginOption;

/** A lock plugin's options, bound by the framework's one binder ({@link OptionBinder}). */
final class Options {
  private final BoundOptions bound;

  Options(String plugin, List<PluginOption> options, Map<String, String> given) {
    this.bound = OptionBinder.bind("lock " + plugin, options, given == null ? Map.of() : given);
  }

  boolean bool(String key) {
    return bound.bool(key);
  }

  String choice(String key) {
    return bound.choice(key);
  }

  long integer(String key) {
    return bound.integer(key);
  }
}

package org.lockvisor.core.plugin;

import java.util.Map;

/** Static helpers over maps of plugins keyed by name. */
public final class Plugins {

  private Plugins() {}

  /**
   * The plugin called {@code name} in {@code plugins}.
   *
   * @throws UnknownPluginException naming the kind, the known names and the closest ones
   */
  public static <T> T choose(Map<String, ? extends T> plugins, String kind, String name) {
    T plugin = name == null ? null : plugins.get(name);
    if (plugin == null) {
      throw new UnknownPluginException(kind, String.valueOf(name), plugins.keySet());
    }
    return plugin;
  }
}

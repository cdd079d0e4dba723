package org.lockvisor.experiment.model;

import com.google.common.collect.ImmutableSortedMap;
import java.util.Map;

/**
 * A plugin chosen by name with its options (values as written; the plugin's declared options
 * check them).
 */
public record Choice(String name, Map<String, String> options) {
  public Choice {
    name = name == null ? "" : name;
    options = options == null ? ImmutableSortedMap.of() : ImmutableSortedMap.copyOf(options);
  }

  public static Choice of(String name) {
    return new Choice(name, Map.of());
  }

  public static Choice of(String name, Map<String, String> options) {
    return new Choice(name, options);
  }
}

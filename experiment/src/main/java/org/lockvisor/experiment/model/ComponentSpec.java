package org.lockvisor.experiment.model;

import com.google.common.collect.ImmutableSortedMap;
import java.util.Map;

/**
 * A device or workload of a VM: instance name, plugin name ({@code type}) and options.
 */
public record ComponentSpec(String name, String type, Map<String, String> options) {
  public ComponentSpec {
    name = name == null ? "" : name;
    type = type == null ? "" : type;
    options = options == null ? ImmutableSortedMap.of() : ImmutableSortedMap.copyOf(options);
  }
}

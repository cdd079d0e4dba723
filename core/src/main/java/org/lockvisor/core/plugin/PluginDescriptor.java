package org.lockvisor.core.plugin;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSortedSet;
import java.util.Collection;
import java.util.List;

/**
 * A snapshot of what a plugin says about itself, detached from the plugin instance: what {@code
 * lockvisor plugins} prints and what a run's provenance manifest records.
 */
public record PluginDescriptor(
    String kind,
    String name,
    String summary,
    String version,
    ImmutableSortedSet<String> capabilities,
    ImmutableList<PluginOption> options) {

  public PluginDescriptor {
    checkArgument(PluginDiscovery.isValidName(kind), "bad plugin kind [%s]", kind);
    checkArgument(PluginDiscovery.isValidName(name), "bad plugin name [%s]", name);
    checkArgument(summary != null && !summary.isBlank(), "plugin [%s] needs a summary", name);
    checkArgument(version != null && !version.isBlank(), "plugin [%s] needs a version", name);
    capabilities = ImmutableSortedSet.copyOf(capabilities);
    options = ImmutableList.copyOf(options);
  }

  public PluginDescriptor(
      String kind, String name, String summary, String version,
      Collection<String> capabilities, List<PluginOption> options) {
    this(kind, name, summary, version, ImmutableSortedSet.copyOf(capabilities), ImmutableList.copyOf(options));
  }

  /** Describes {@code plugin} as registered under {@code kind} (normally equal to its own kind()). */
  public static PluginDescriptor of(String kind, Plugin plugin) {
    return new PluginDescriptor(
        kind, plugin.name(), plugin.summary(), plugin.version(), plugin.capabilities(), plugin.options());
  }
}

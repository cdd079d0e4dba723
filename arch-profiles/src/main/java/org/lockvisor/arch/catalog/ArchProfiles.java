package org.lockvisor.arch.catalog;

import com.google.common.collect.ImmutableSortedMap;
import org.lockvisor.arch.spi.ArchProfile;
import org.lockvisor.arch.spi.ArchProfileFactory;
import org.lockvisor.core.plugin.DidYouMean;
import org.lockvisor.core.plugin.PluginDiscovery;

/**
 * Finds arch profile factories through {@link PluginDiscovery}: loudly, sorted by name, failing on
 * a duplicate name. The experiment module's {@code PluginRegistry} is where the rest of lockvisor
 * turns a profile name into a profile; this class serves the modules below it (the YAML loader's
 * {@code extends:}) and tests without the experiment module.
 */
public final class ArchProfiles {

  private ArchProfiles() {}

  /**
   * Every factory visible to the class loader, by name.
   *
   * @throws org.lockvisor.core.plugin.PluginDiscoveryException if two factories share a name,
   *     naming both classes and their jars
   */
  public static ImmutableSortedMap<String, ArchProfileFactory> discover(ClassLoader loader) {
    return PluginDiscovery.discover(ArchProfileFactory.class, loader);
  }

  /** Factories visible to this class's loader. */
  public static ImmutableSortedMap<String, ArchProfileFactory> discover() {
    return discover(ArchProfiles.class.getClassLoader());
  }

  /**
   * The profile of the given name.
   *
   * @throws IllegalArgumentException for an unknown name, listing the known names
   */
  public static ArchProfile byName(String name) {
    ImmutableSortedMap<String, ArchProfileFactory> all = discover();
    ArchProfileFactory f = all.get(name);
    if (f == null) {
      throw new IllegalArgumentException(DidYouMean.unknownMessage("arch profile", name, all.keySet()));
    }
    return f.create();
  }
}

package org.lockvisor.arch.catalog;

import com.google.common.collect.ImmutableSortedMap;
import java.lang.System.Logger.Level;
import java.util.ServiceLoader;
import java.util.TreeMap;
import com.google.common.collect.ImmutableList;
import org.lockvisor.arch.spi.ArchProfile;
import org.lockvisor.arch.spi.ArchProfileFactory;
import org.lockvisor.core.plugin.DidYouMean;

/**
 * Finds arch profile factories with {@link ServiceLoader}: loudly, sorted by name, failing on a
 * duplicate name. The experiment module binds the result into its MapBinder; this class serves the
 * YAML loader ({@code extends:}) and tests without Guice.
 */
public final class ArchProfiles {

  private static final System.Logger LOG = System.getLogger(ArchProfiles.class.getName());

  private ArchProfiles() {}

  /**
   * Every factory visible to the class loader, by name.
   *
   * @throws IllegalStateException if two factories share a name, naming both classes
   */
  public static ImmutableSortedMap<String, ArchProfileFactory> discover(ClassLoader loader) {
    TreeMap<String, ArchProfileFactory> byName = new TreeMap<>();
    for (ArchProfileFactory f : ServiceLoader.load(ArchProfileFactory.class, loader)) {
      ArchProfileFactory previous = byName.putIfAbsent(f.name(), f);
      if (previous != null) {
        throw new IllegalStateException("duplicate arch profile name [" + f.name() + "]: "
            + previous.getClass().getName() + " and " + f.getClass().getName());
      }
      LOG.log(Level.DEBUG, () -> "arch profile [" + f.name() + "] from " + f.getClass().getName() + " in "
          + f.getClass().getProtectionDomain().getCodeSource());
    }
    return ImmutableSortedMap.copyOf(byName);
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
      ImmutableList<String> close = DidYouMean.suggestions(name, all.keySet());
      throw new IllegalArgumentException("unknown arch profile [" + name + "]"
          + (close.isEmpty() ? "" : "; did you mean " + close + "?") + "; known: " + all.keySet());
    }
    return f.create();
  }
}

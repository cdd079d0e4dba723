package org.lockvisor.cli.inject;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSortedSet;
import com.google.inject.Injector;
import com.google.inject.Key;
import com.google.inject.util.Types;
import jakarta.inject.Inject;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.lockvisor.core.plugin.DidYouMean;
import org.lockvisor.core.plugin.Plugin;
import org.lockvisor.core.plugin.PluginDescriptor;
import org.lockvisor.core.plugin.PluginDiscovery;
import org.lockvisor.core.plugin.PluginKind;
import org.lockvisor.experiment.UserInputException;

/**
 * Every bound plugin of every kind, as detached descriptors sorted by (kind, name): what {@code
 * lockvisor plugins} prints and what a provenance manifest records. It reads the same multibound
 * maps the rest of the application injects, so it cannot disagree with them.
 */
public final class PluginCatalog {

  private final ImmutableSortedSet<String> kinds;
  private final ImmutableList<PluginDescriptor> plugins;
  private final ImmutableMap<String, String> origins;

  @Inject
  PluginCatalog(Injector injector, PluginKinds kinds) {
    List<PluginDescriptor> descriptors = new ArrayList<>();
    ImmutableMap.Builder<String, String> origins = ImmutableMap.builder();
    String builtIn = display(PluginDiscovery.origin(Plugin.class));
    for (PluginKind<?> kind : kinds.kinds()) {
      @SuppressWarnings("unchecked") // The key's type is Map<String, spi>; every value is a Plugin.
      Map<String, ? extends Plugin> bound = (Map<String, ? extends Plugin>)
          injector.getInstance(Key.get(Types.mapOf(String.class, kind.spi())));
      // Sorted: the multibound map's iteration order is binding order, not a contract.
      new TreeMap<>(bound).values().forEach(plugin -> {
        descriptors.add(PluginDescriptor.of(kind.name(), plugin));
        String origin = display(PluginDiscovery.origin(plugin.getClass()));
        origins.put(kind.name() + "/" + plugin.name(), origin.equals(builtIn) ? BUILT_IN : origin);
      });
    }
    descriptors.sort(Comparator.comparing(PluginDescriptor::kind).thenComparing(PluginDescriptor::name));
    this.kinds = kinds.kinds().stream().map(PluginKind::name).collect(ImmutableSortedSet.toImmutableSortedSet(
        Comparator.naturalOrder()));
    this.plugins = ImmutableList.copyOf(descriptors);
    this.origins = origins.buildKeepingLast();
  }

  /**
   * What {@link #origin} answers for a plugin in the same jar as lockvisor's core (every built-in
   * in the shaded command-line jar; in a reactor build each module's classes directory shows).
   */
  public static final String BUILT_IN = "built-in";

  /**
   * Where {@code plugin} was loaded from: {@link #BUILT_IN} for lockvisor's own jars, else the
   * jar (or classes directory) as a path, so "which jar gave me this lock?" has an answer.
   */
  private static String display(String location) {
    try {
      return location.startsWith("file:") ? Path.of(URI.create(location)).toString() : location;
    } catch (IllegalArgumentException e) {
      return location;
    }
  }

  public String origin(PluginDescriptor plugin) {
    return origins.getOrDefault(plugin.kind() + "/" + plugin.name(), "unknown location");
  }


  /** All plugins, sorted by kind, then name. */
  public ImmutableList<PluginDescriptor> all() {
    return plugins;
  }

  /** The registered kinds, sorted, including kinds with no plugin on the class path. */
  public ImmutableSortedSet<String> kinds() {
    return kinds;
  }

  /**
   * The plugins of one kind, sorted by name.
   *
   * @throws UserInputException for an unknown kind, with the known kinds and a suggestion
   */
  public ImmutableList<PluginDescriptor> ofKind(String kind) {
    if (!kinds.contains(kind)) {
      throw new UserInputException(DidYouMean.unknownMessage("plugin kind", kind, kinds));
    }
    return plugins.stream().filter(p -> p.kind().equals(kind)).collect(ImmutableList.toImmutableList());
  }
}

package org.lockvisor.cli.inject;

import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSortedMap;
import com.google.inject.AbstractModule;
import com.google.inject.multibindings.MapBinder;
import org.lockvisor.core.plugin.Plugin;
import org.lockvisor.core.plugin.PluginKind;
import org.lockvisor.experiment.model.PluginRegistry;
import org.lockvisor.reproductions.api.Reproduction;
import org.lockvisor.reproductions.api.ShippedExperimentFiles;

/**
 * Binds the plugins of every listed kind into a {@code MapBinder<String, T>} keyed by plugin name
 * (bindings are added in name order, and consumers still sort before use), plus the {@link
 * PluginKinds} and the {@link PluginCatalog} that lists them all.
 *
 * <p>Discovery happens in {@link #discover}, before the injector is built, so a duplicate or
 * malformed plugin fails with the {@link PluginRegistry}'s own message instead of inside a Guice
 * CreationException; so does a reproduction's shipped experiment file that is missing from its jar
 * or whose name another jar ships too ({@link ShippedExperimentFiles}).
 */
public final class PluginModule extends AbstractModule {

  private final PluginKinds kinds;
  private final ImmutableMap<PluginKind<?>, ImmutableSortedMap<String, ? extends Plugin>> discovered;

  private PluginModule(
      PluginKinds kinds, ImmutableMap<PluginKind<?>, ImmutableSortedMap<String, ? extends Plugin>> discovered) {
    this.kinds = kinds;
    this.discovered = discovered;
  }

  /**
   * Discovers the plugins of each kind in {@code loader}.
   *
   * @throws org.lockvisor.core.plugin.PluginDiscoveryException on inconsistent registrations or
   *     shipped experiment files
   */
  public static PluginModule discover(PluginKinds kinds, ClassLoader loader) {
    PluginRegistry registry = PluginRegistry.discover(kinds.kinds(), loader);
    ImmutableMap.Builder<PluginKind<?>, ImmutableSortedMap<String, ? extends Plugin>> discovered =
        ImmutableMap.builder();
    for (PluginKind<?> kind : kinds.kinds()) {
      discovered.put(kind, registry.all(kind));
      if (kind.spi() == Reproduction.class) {
        // shipped file names share one class-path folder across jars: refused here, not when run
        ShippedExperimentFiles.check(registry.all(kind).values().stream().map(Reproduction.class::cast).toList());
      }
    }
    return new PluginModule(kinds, discovered.buildOrThrow());
  }

  @Override
  protected void configure() {
    bind(PluginKinds.class).toInstance(kinds);
    for (PluginKind<?> kind : kinds.kinds()) {
      bindKind(kind);
    }
    bind(PluginCatalog.class);
  }

  private <T extends Plugin> void bindKind(PluginKind<T> kind) {
    // Declared even when nothing is registered, so an empty kind injects an empty map.
    MapBinder<String, T> mapBinder = MapBinder.newMapBinder(binder(), String.class, kind.spi());
    discovered.get(kind).forEach((name, plugin) ->
        mapBinder.addBinding(name).toInstance(kind.spi().cast(plugin)));
  }
}

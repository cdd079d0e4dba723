package org.lockvisor.experiment.model;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.base.Suppliers;
import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSortedMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.lockvisor.arch.spi.ArchProfile;
import org.lockvisor.arch.spi.ArchProfileFactory;
import org.lockvisor.core.plugin.DidYouMean;
import org.lockvisor.core.plugin.Plugin;
import org.lockvisor.core.plugin.PluginDiscovery;
import org.lockvisor.core.plugin.PluginDiscoveryException;
import org.lockvisor.core.plugin.PluginKind;
import org.lockvisor.devices.spi.DeviceFactory;
import org.lockvisor.locking.spi.LockFactory;
import org.lockvisor.scheduler.spi.SchedulerFactory;
import org.lockvisor.workloads.spi.WorkloadFactory;

/**
 * The one place where a plugin name becomes an object: plugins by kind and name, filled from
 * {@link PluginDiscovery} (ServiceLoader, loud on duplicate or malformed names, with the jar each
 * came from) or registered by hand, and looked up by kind and name with the framework's one
 * "unknown X; did you mean" message. Two plugins of one kind under one name are refused, naming
 * both classes and where they were loaded from; nothing is silently shadowed (after Trino's {@code
 * PluginManager}).
 *
 * <p>The composition root builds its injector from a registry ({@code PluginModule}); code that
 * runs without an injector (reproductions, benchmarks, examples) uses {@link #classPath()}, the
 * registry of lockvisor's own class path, discovered once.
 */
public final class PluginRegistry {

  public static final PluginKind<ArchProfileFactory> ARCH = PluginKind.of(ArchProfileFactory.KIND,
      ArchProfileFactory.class);
  public static final PluginKind<SchedulerFactory> SCHEDULER = PluginKind.of("scheduler", SchedulerFactory.class);
  public static final PluginKind<LockFactory> LOCK = PluginKind.of("lock", LockFactory.class);
  public static final PluginKind<DeviceFactory> DEVICE = PluginKind.of("device", DeviceFactory.class);
  public static final PluginKind<WorkloadFactory> WORKLOAD = PluginKind.of("workload", WorkloadFactory.class);

  /** The kinds an experiment names: the machine's parts. */
  public static final ImmutableList<PluginKind<?>> MACHINE_KINDS = ImmutableList.of(
      ARCH, SCHEDULER, LOCK, DEVICE, WORKLOAD);

  private static final Supplier<PluginRegistry> CLASS_PATH = Suppliers.memoize(
      () -> discover(MACHINE_KINDS, PluginRegistry.class.getClassLoader()));

  private final ImmutableMap<PluginKind<?>, ImmutableSortedMap<String, ? extends Plugin>> byKind;

  private PluginRegistry(ImmutableMap<PluginKind<?>, ImmutableSortedMap<String, ? extends Plugin>> byKind) {
    this.byKind = byKind;
  }

  /**
   * The plugins of each of {@code kinds} in {@code loader}.
   *
   * @throws PluginDiscoveryException on a duplicate or malformed name, a plugin reporting another
   *     kind, or a provider that cannot be instantiated
   */
  public static PluginRegistry discover(Iterable<PluginKind<?>> kinds, ClassLoader loader) {
    Builder builder = builder();
    for (PluginKind<?> kind : kinds) {
      builder.kind(kind);
      discoverInto(builder, kind, loader);
    }
    return builder.build();
  }

  private static <T extends Plugin> void discoverInto(Builder builder, PluginKind<T> kind, ClassLoader loader) {
    PluginDiscovery.discover(kind, loader).values().forEach(p -> builder.register(kind, p));
  }

  /** The machine kinds on lockvisor's own class path, discovered once (loudly) and shared. */
  public static PluginRegistry classPath() {
    return CLASS_PATH.get();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The kinds this registry holds, in registration order. */
  public ImmutableList<PluginKind<?>> kinds() {
    return byKind.keySet().asList();
  }

  /** Every plugin of {@code kind}, sorted by name (empty for a kind this registry does not hold). */
  @SuppressWarnings("unchecked") // the builder files every plugin under its own kind's SPI
  public <T extends Plugin> ImmutableSortedMap<String, T> all(PluginKind<T> kind) {
    ImmutableSortedMap<String, ? extends Plugin> plugins = byKind.get(kind);
    return plugins == null ? ImmutableSortedMap.of() : (ImmutableSortedMap<String, T>) plugins;
  }

  /**
   * The plugin of {@code kind} called {@code name}.
   *
   * @throws IllegalArgumentException for an unknown name: {@code unknown lock plugin [tiket];
   *     known: [...]; did you mean [ticket]?}
   */
  public <T extends Plugin> T get(PluginKind<T> kind, String name) {
    ImmutableSortedMap<String, T> plugins = all(kind);
    T plugin = name == null ? null : plugins.get(name);
    if (plugin == null) {
      throw new IllegalArgumentException(DidYouMean.unknownMessage(kind.name() + " plugin",
          String.valueOf(name), plugins.keySet()));
    }
    return plugin;
  }

  /** A fresh profile from the arch plugin called {@code name} ({@link #get} for unknown names). */
  public ArchProfile archProfile(String name) {
    return get(ARCH, name).create();
  }

  /** The experiment's view of the machine kinds. */
  public ExperimentPlugins experimentPlugins() {
    return new ExperimentPlugins(all(ARCH), all(SCHEDULER), all(LOCK), all(DEVICE), all(WORKLOAD));
  }

  /** Collects plugins by kind, refusing a second plugin under a name already taken in its kind. */
  public static final class Builder {
    private final Map<PluginKind<?>, Map<String, Plugin>> byKind = new LinkedHashMap<>();

    private Builder() {}

    /** Declares {@code kind}, so it is held (possibly empty) even when nothing of it is registered. */
    public Builder kind(PluginKind<?> kind) {
      checkArgument(kind != null, "kind must not be null");
      for (PluginKind<?> known : byKind.keySet()) {
        checkArgument(known.equals(kind) || !known.name().equals(kind.name()),
            "plugin kind [%s] is declared with two SPIs: %s and %s", kind.name(), known.spi().getName(),
            kind.spi().getName());
      }
      byKind.computeIfAbsent(kind, k -> new TreeMap<>());
      return this;
    }

    /**
     * Adds {@code plugin} under its own name.
     *
     * @throws PluginDiscoveryException if another plugin of {@code kind} already has that name,
     *     naming both classes and their jars
     */
    public <T extends Plugin> Builder register(PluginKind<T> kind, T plugin) {
      checkArgument(plugin != null, "plugin must not be null");
      checkArgument(kind.spi().isInstance(plugin), "%s is not a %s", plugin.getClass().getName(),
          kind.spi().getSimpleName());
      kind(kind);
      Map<String, Plugin> plugins = byKind.get(kind);
      Plugin previous = plugins.putIfAbsent(plugin.name(), plugin);
      if (previous != null) {
        throw new PluginDiscoveryException(String.format("duplicate %s plugin name [%s]: %s (%s) and %s (%s)",
            kind.name(), plugin.name(), previous.getClass().getName(), PluginDiscovery.origin(previous.getClass()),
            plugin.getClass().getName(), PluginDiscovery.origin(plugin.getClass())));
      }
      return this;
    }

    /** {@link #register} for each value of {@code plugins}. */
    public <T extends Plugin> Builder registerAll(PluginKind<T> kind, Map<String, ? extends T> plugins) {
      kind(kind);
      plugins.values().forEach(p -> register(kind, p));
      return this;
    }

    public PluginRegistry build() {
      ImmutableMap.Builder<PluginKind<?>, ImmutableSortedMap<String, ? extends Plugin>> kinds = ImmutableMap.builder();
      byKind.forEach((kind, plugins) -> kinds.put(kind, ImmutableSortedMap.copyOf(plugins)));
      return new PluginRegistry(kinds.buildOrThrow());
    }
  }
}

package org.lockvisor.core.plugin;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.collect.ImmutableSortedMap;
import java.net.URL;
import java.security.CodeSource;
import java.util.HashMap;
import java.util.Map;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.TreeMap;
import java.util.logging.Logger;
import java.util.regex.Pattern;

/**
 * Finds the plugins of one SPI interface with {@link ServiceLoader} (registrations written by
 * {@code @AutoService}). Discovery is loud, after Trino's {@code PluginManager}: a duplicate name
 * fails and names both classes, a malformed name fails, and every registration is logged at
 * {@code FINE} with the jar or directory it came from, so "which ticket lock did I get?" has an
 * answer.
 */
public final class PluginDiscovery {

  /** Names are stable, lower-case, kebab (or snake) case: {@code pv-qspinlock}, {@code x86_64-kvm}. */
  public static final Pattern NAME_PATTERN = Pattern.compile("[a-z0-9][a-z0-9_-]*");

  private static final Logger LOG = Logger.getLogger(PluginDiscovery.class.getName());

  private PluginDiscovery() {}

  public static boolean isValidName(String name) {
    return name != null && NAME_PATTERN.matcher(name).matches();
  }

  /**
   * All plugins registered for {@code spi} in {@code loader}, keyed and sorted by name.
   *
   * @throws PluginDiscoveryException on a duplicate or malformed name, or a provider that cannot
   *     be instantiated
   */
  public static <T extends Plugin> ImmutableSortedMap<String, T> discover(Class<T> spi, ClassLoader loader) {
    return discover(spi, null, loader);
  }

  /**
   * Like {@link #discover(Class, ClassLoader)}, and also checks that every plugin reports {@code
   * kind.name()} as its kind, so a plugin registered under the wrong SPI cannot hide.
   */
  public static <T extends Plugin> ImmutableSortedMap<String, T> discover(PluginKind<T> kind, ClassLoader loader) {
    checkArgument(kind != null, "kind must not be null");
    return discover(kind.spi(), kind.name(), loader);
  }

  private static <T extends Plugin> ImmutableSortedMap<String, T> discover(
      Class<T> spi, String expectedKind, ClassLoader loader) {
    checkArgument(spi != null, "spi must not be null");
    checkArgument(loader != null, "class loader must not be null");
    // TreeMap: the result order must not depend on class-path order.
    Map<String, T> byName = new TreeMap<>();
    Map<String, Class<?>> classByName = new HashMap<>();
    try {
      for (ServiceLoader.Provider<T> provider : ServiceLoader.load(spi, loader).stream().toList()) {
        T plugin = instantiate(spi, provider);
        Class<?> type = plugin.getClass();
        String name = plugin.name();
        if (!isValidName(name)) {
          throw new PluginDiscoveryException(String.format(
              "bad %s plugin name [%s] from %s (%s); names match %s",
              spi.getSimpleName(), name, type.getName(), origin(type), NAME_PATTERN));
        }
        if (expectedKind != null && !expectedKind.equals(plugin.kind())) {
          throw new PluginDiscoveryException(String.format(
              "%s plugin [%s] from %s reports kind [%s], expected [%s]",
              spi.getSimpleName(), name, type.getName(), plugin.kind(), expectedKind));
        }
        if (plugin.summary() == null || plugin.summary().isBlank()) {
          throw new PluginDiscoveryException(String.format(
              "%s plugin [%s] from %s has no summary", spi.getSimpleName(), name, type.getName()));
        }
        Class<?> previous = classByName.putIfAbsent(name, type);
        if (previous != null) {
          throw new PluginDiscoveryException(String.format(
              "duplicate %s plugin name [%s]: %s (%s) and %s (%s)",
              spi.getSimpleName(), name, previous.getName(), origin(previous), type.getName(), origin(type)));
        }
        byName.put(name, plugin);
        LOG.fine(() -> String.format("registered %s plugin [%s] %s from %s",
            spi.getSimpleName(), name, type.getName(), origin(type)));
      }
    } catch (ServiceConfigurationError e) {
      throw new PluginDiscoveryException(
          String.format("cannot load %s plugins: %s", spi.getSimpleName(), e.getMessage()), e);
    }
    return ImmutableSortedMap.copyOf(byName);
  }

  private static <T> T instantiate(Class<T> spi, ServiceLoader.Provider<T> provider) {
    try {
      return provider.get();
    } catch (ServiceConfigurationError | RuntimeException e) {
      throw new PluginDiscoveryException(String.format(
          "cannot instantiate %s plugin %s: %s", spi.getSimpleName(), provider.type().getName(), e), e);
    }
  }

  /** Where a class was loaded from (a jar or a classes directory), for log and error messages. */
  public static String origin(Class<?> type) {
    CodeSource source = type.getProtectionDomain() == null ? null : type.getProtectionDomain().getCodeSource();
    URL location = source == null ? null : source.getLocation();
    return location == null ? "unknown location" : location.toString();
  }
}

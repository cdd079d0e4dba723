package org.lockvisor.core.plugin;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * One extension point: the kind name plugins report from {@link Plugin#kind()} (e.g. {@code
 * lock}) and the SPI interface they implement (e.g. {@code LockFactory}). Registering a new kind
 * with the composition root is one {@code PluginKind.of(...)} line.
 */
public record PluginKind<T extends Plugin>(String name, Class<T> spi) {

  public PluginKind {
    checkArgument(name != null && PluginDiscovery.isValidName(name),
        "bad plugin kind [%s]; kinds match %s", name, PluginDiscovery.NAME_PATTERN);
    checkArgument(spi != null && spi.isInterface(), "plugin kind [%s] needs an SPI interface, got %s", name, spi);
  }

  public static <T extends Plugin> PluginKind<T> of(String name, Class<T> spi) {
    return new PluginKind<>(name, spi);
  }
}

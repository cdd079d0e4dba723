package org.lockvisor.cli.inject;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.collect.ImmutableList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.lockvisor.core.plugin.PluginKind;
import org.lockvisor.experiment.model.PluginRegistry;
import org.lockvisor.reproductions.api.Reproduction;

/**
 * The extension points the composition root discovers and binds. Adding a kind is one line in
 * {@link #BUILT_IN}, e.g. {@code PluginKind.of("lock", LockFactory.class)}.
 */
public record PluginKinds(ImmutableList<PluginKind<?>> kinds) {

  /** Every kind lockvisor itself defines. */
  public static final PluginKinds BUILT_IN = of(
      // One line per SPI.
      PluginRegistry.ARCH,
      PluginRegistry.SCHEDULER,
      PluginRegistry.LOCK,
      PluginRegistry.DEVICE,
      PluginRegistry.WORKLOAD,
      PluginKind.of(Reproduction.KIND, Reproduction.class));

  public PluginKinds {
    kinds = ImmutableList.copyOf(kinds);
    Set<String> names = new HashSet<>();
    Set<Class<?>> interfaces = new HashSet<>();
    for (PluginKind<?> kind : kinds) {
      checkArgument(names.add(kind.name()), "plugin kind [%s] is listed twice", kind.name());
      checkArgument(interfaces.add(kind.spi()), "SPI %s is listed under two kinds", kind.spi().getName());
    }
  }

  public static PluginKinds of(PluginKind<?>... kinds) {
    return new PluginKinds(ImmutableList.copyOf(kinds));
  }

  public static PluginKinds of(List<PluginKind<?>> kinds) {
    return new PluginKinds(ImmutableList.copyOf(kinds));
  }
}

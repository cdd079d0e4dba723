package org.lockvisor.core.plugin;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.collect.ImmutableSortedMap;
import java.util.Map;

/**
 * The registered plugins of one kind, chosen by name. The one place where "which lock?" turns
 * into an implementation, so every unknown name fails the same way: {@code unknown lock
 * [qspinlok]; known: [mcs, qspinlock, ticket]; did you mean [qspinlock]?}.
 */
public final class PluginChoice<T> {

  private final String kind;
  private final ImmutableSortedMap<String, T> plugins;

  private PluginChoice(String kind, ImmutableSortedMap<String, T> plugins) {
    this.kind = kind;
    this.plugins = plugins;
  }

  /** Copies {@code plugins} sorted by name; a multibound map arrives in binding order. */
  public static <T> PluginChoice<T> of(String kind, Map<String, ? extends T> plugins) {
    checkArgument(kind != null && !kind.isBlank(), "kind must not be blank");
    return new PluginChoice<>(kind, ImmutableSortedMap.copyOf(plugins));
  }

  /** @throws UnknownPluginException if no plugin of this kind is called {@code name} */
  public T choose(String name) {
    return Plugins.choose(plugins, kind, name);
  }

  public String kind() {
    return kind;
  }

  public ImmutableSortedMap<String, T> all() {
    return plugins;
  }

  @Override
  public String toString() {
    return kind + " " + plugins.keySet();
  }
}

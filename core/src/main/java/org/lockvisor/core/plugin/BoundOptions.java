package org.lockvisor.core.plugin;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.collect.ImmutableSortedMap;
import java.util.Locale;

/**
 * A plugin's option values after {@link OptionBinder#bind}: every declared option has a value
 * (given or default), already checked and normalized, read with typed getters. Reading an
 * option the plugin did not declare is a bug in the plugin ({@link IllegalStateException}).
 */
public final class BoundOptions {
  private final String label;
  private final ImmutableSortedMap<String, PluginOption> declared;
  private final ImmutableSortedMap<String, String> values;
  private final ImmutableSortedMap<String, String> given;

  BoundOptions(String label, ImmutableSortedMap<String, PluginOption> declared,
      ImmutableSortedMap<String, String> values, ImmutableSortedMap<String, String> given) {
    this.label = label;
    this.declared = declared;
    this.values = values;
    this.given = given;
  }

  /** No options declared, none given. */
  public static BoundOptions none(String label) {
    return new BoundOptions(label, ImmutableSortedMap.of(), ImmutableSortedMap.of(), ImmutableSortedMap.of());
  }

  private String raw(String name, PluginOption.Type... types) {
    PluginOption o = declared.get(name);
    if (o == null) {
      throw new IllegalStateException(label + " reads undeclared option [" + name + "]");
    }
    boolean typed = types.length == 0;
    for (PluginOption.Type t : types) {
      typed |= o.type() == t;
    }
    if (!typed) {
      throw new IllegalStateException(label + " reads option [" + name + "] of type " + o.type() + " as "
          + java.util.Arrays.toString(types));
    }
    return values.get(name);
  }

  public boolean bool(String name) {
    return Boolean.parseBoolean(raw(name, PluginOption.Type.BOOLEAN));
  }

  public long integer(String name) {
    return Long.parseLong(raw(name, PluginOption.Type.INTEGER, PluginOption.Type.DURATION_NS));
  }

  /** A {@code DURATION_NS} option in nanoseconds. */
  public long durationNs(String name) {
    return Long.parseLong(raw(name, PluginOption.Type.DURATION_NS));
  }

  public double real(String name) {
    return Double.parseDouble(raw(name, PluginOption.Type.DOUBLE, PluginOption.Type.INTEGER));
  }

  /** The value as text (any type), normalized. */
  public String string(String name) {
    return raw(name);
  }

  /** An {@code ENUM} option's value, in its declared spelling. */
  public String choice(String name) {
    return raw(name, PluginOption.Type.ENUM);
  }

  /** An {@code ENUM} option as a Java enum constant (declared values in kebab case map to UPPER_SNAKE). */
  public <E extends Enum<E>> E choice(String name, Class<E> type) {
    String v = choice(name);
    String constant = v.toUpperCase(Locale.ROOT).replace('-', '_');
    for (E e : type.getEnumConstants()) {
      if (e.name().equals(constant)) {
        return e;
      }
    }
    checkArgument(false, "%s: option [%s] value [%s] has no constant in %s", label, name, v, type.getSimpleName());
    return null;
  }

  /** Whether the user gave {@code name} (rather than it taking its default). */
  public boolean isGiven(String name) {
    return given.containsKey(name);
  }

  /** Every value including defaults, normalized, sorted by name (for provenance). */
  public ImmutableSortedMap<String, String> asMap() {
    return values;
  }

  /** The values the user gave, as given. */
  public ImmutableSortedMap<String, String> given() {
    return given;
  }

  @Override
  public String toString() {
    return label + values;
  }
}

package org.lockvisor.scheduler.builtin;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import org.lockvisor.core.plugin.PluginOption;

/**
 * Strict parsing of the option maps handed to the built-in scheduler factories: unknown keys are
 * errors listing the known ones, values are checked against the declared type and range.
 */
final class BuiltinOptions {
  private final String plugin;
  private final Map<String, String> values;
  private final Map<String, PluginOption> declared;

  private BuiltinOptions(String plugin, Map<String, String> values, List<PluginOption> options) {
    this.plugin = plugin;
    this.values = values;
    this.declared = new java.util.LinkedHashMap<>();
    for (PluginOption o : options) {
      declared.put(o.name(), o);
    }
    List<String> unknown = new ArrayList<>();
    for (String key : new TreeSet<>(values.keySet())) {
      if (!declared.containsKey(key)) {
        unknown.add(key);
      }
    }
    checkArgument(unknown.isEmpty(), "unknown option%s %s for scheduler [%s]; known: %s",
        unknown.size() == 1 ? "" : "s", unknown, plugin, declared.keySet());
  }

  static BuiltinOptions of(String plugin, Map<String, String> values, List<PluginOption> options) {
    return new BuiltinOptions(plugin, values == null ? Map.of() : values, options);
  }

  private String raw(String name) {
    PluginOption o = declared.get(name);
    checkArgument(o != null, "option [%s] is not declared by [%s]", name, plugin);
    String v = values.get(name);
    return v == null ? o.defaultValue() : v.trim();
  }

  /** A duration in ns: a plain number of nanoseconds, or a number with ns, us, ms or s. */
  long duration(String name) {
    String v = raw(name);
    long ns = parseDuration(v, name);
    PluginOption o = declared.get(name);
    checkArgument(ns >= o.min() && ns <= o.max(), "option [%s] of [%s] out of range [%s ns]; allowed %s..%s ns",
        name, plugin, ns, (long) o.min(), (long) o.max());
    return ns;
  }

  double decimal(String name) {
    String v = raw(name);
    double d;
    try {
      d = Double.parseDouble(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(String.format(
          "option [%s] of [%s] is not a number: [%s]", name, plugin, v), e);
    }
    PluginOption o = declared.get(name);
    checkArgument(d >= o.min() && d <= o.max(), "option [%s] of [%s] out of range [%s]; allowed %s..%s",
        name, plugin, v, o.min(), o.max());
    return d;
  }

  boolean bool(String name) {
    String v = raw(name).toLowerCase(Locale.ROOT);
    checkArgument(v.equals("true") || v.equals("false"), "option [%s] of [%s] must be true or false: [%s]",
        name, plugin, v);
    return Boolean.parseBoolean(v);
  }

  String choice(String name) {
    String v = raw(name).toLowerCase(Locale.ROOT);
    PluginOption o = declared.get(name);
    checkArgument(o.allowed().contains(v), "option [%s] of [%s] has unknown value [%s]; allowed: %s",
        name, plugin, v, o.allowed());
    return v;
  }

  private long parseDuration(String v, String name) {
    String s = v.toLowerCase(Locale.ROOT);
    long unit = 1;
    String digits = s;
    if (s.endsWith("ns")) {
      digits = s.substring(0, s.length() - 2);
    } else if (s.endsWith("us")) {
      unit = 1_000;
      digits = s.substring(0, s.length() - 2);
    } else if (s.endsWith("ms")) {
      unit = 1_000_000;
      digits = s.substring(0, s.length() - 2);
    } else if (s.endsWith("s")) {
      unit = 1_000_000_000;
      digits = s.substring(0, s.length() - 1);
    }
    try {
      return Math.round(Double.parseDouble(digits.trim()) * unit);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(String.format(
          "option [%s] of [%s] is not a duration: [%s]; use ns or a number with ns, us, ms or s", name, plugin, v), e);
    }
  }
}

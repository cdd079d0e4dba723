package org.lockvisor.core.plugin;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.collect.ImmutableList;
import java.util.List;

/**
 * One option a plugin declares: its name, type, default and documentation. Allowed values are
 * listed for enumerated options; numbers carry an inclusive range.
 */
public record PluginOption(
    String name, Type type, String defaultValue, String doc, List<String> allowed, double min, double max) {

  /** Option value types. */
  public enum Type { BOOLEAN, INTEGER, DURATION_NS, DOUBLE, STRING, ENUM }

  public PluginOption {
    checkArgument(name != null && name.matches("[a-z][a-zA-Z0-9-]*"), "bad option name [%s]", name);
    checkArgument(type != null, "option [%s] needs a type", name);
    checkArgument(doc != null && !doc.isBlank(), "option [%s] needs documentation", name);
    allowed = ImmutableList.copyOf(allowed);
    checkArgument(type != Type.ENUM || !allowed.isEmpty(), "enum option [%s] needs allowed values", name);
    checkArgument(min <= max, "option [%s]: min %s > max %s", name, min, max);
  }

  public static PluginOption ofEnum(String name, String defaultValue, String doc, String... allowed) {
    return new PluginOption(name, Type.ENUM, defaultValue, doc, List.of(allowed), 0, 0);
  }

  public static PluginOption ofBoolean(String name, boolean defaultValue, String doc) {
    return new PluginOption(name, Type.BOOLEAN, Boolean.toString(defaultValue), doc, List.of("true", "false"), 0, 0);
  }

  public static PluginOption ofInt(String name, long defaultValue, long min, long max, String doc) {
    return new PluginOption(name, Type.INTEGER, Long.toString(defaultValue), doc, List.of(), min, max);
  }

  public static PluginOption ofDouble(String name, double defaultValue, double min, double max, String doc) {
    return new PluginOption(name, Type.DOUBLE, Double.toString(defaultValue), doc, List.of(), min, max);
  }

  public static PluginOption ofDuration(String name, long defaultNs, long minNs, long maxNs, String doc) {
    return new PluginOption(name, Type.DURATION_NS, Long.toString(defaultNs), doc, List.of(), minNs, maxNs);
  }
}

package org.lockvisor.devices.spi;

import com.google.common.collect.ImmutableMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.lockvisor.core.plugin.PluginOption;

/**
 * A plugin's option values checked against its declared {@link PluginOption}s: strict (unknown
 * keys are errors, with "did you mean"), every problem reported at once, defaults from the
 * declarations. Shared by device and workload plugins.
 */
public final class OptionValues {
  private final String plugin;
  private final Map<String, PluginOption> declared;
  private final Map<String, String> values;

  private OptionValues(String plugin, Map<String, PluginOption> declared, Map<String, String> values) {
    this.plugin = plugin;
    this.declared = declared;
    this.values = values;
  }

  /** Validates {@code given} against {@code options}; throws one IllegalArgumentException listing every problem. */
  public static OptionValues parse(String plugin, List<PluginOption> options, Map<String, String> given) {
    Map<String, PluginOption> declared = new TreeMap<>();
    for (PluginOption o : options) {
      declared.put(o.name(), o);
    }
    List<String> errors = new ArrayList<>();
    Map<String, String> values = new TreeMap<>();
    for (PluginOption o : options) {
      values.put(o.name(), o.defaultValue());
    }
    for (Map.Entry<String, String> e : new TreeMap<>(given).entrySet()) {
      PluginOption o = declared.get(e.getKey());
      if (o == null) {
        errors.add("unknown option [" + e.getKey() + "]" + didYouMean(e.getKey(), declared.keySet())
            + "; known: " + declared.keySet());
        continue;
      }
      String problem = check(o, e.getValue());
      if (problem != null) {
        errors.add(problem);
      } else {
        values.put(o.name(), e.getValue().trim());
      }
    }
    if (!errors.isEmpty()) {
      throw new IllegalArgumentException(plugin + ": " + String.join("; ", errors));
    }
    return new OptionValues(plugin, declared, values);
  }

  private static String check(PluginOption o, String raw) {
    String v = raw == null ? "" : raw.trim();
    try {
      switch (o.type()) {
        case BOOLEAN, ENUM -> {
          if (!o.allowed().contains(v)) {
            return "option " + o.name() + " [" + v + "] is not one of " + o.allowed();
          }
        }
        case INTEGER, DURATION_NS -> {
          long n = Long.parseLong(v);
          if (n < o.min() || n > o.max()) {
            return "option " + o.name() + " [" + v + "] is outside [" + (long) o.min() + ", " + (long) o.max() + "]";
          }
        }
        case DOUBLE -> {
          double d = Double.parseDouble(v);
          if (d < o.min() || d > o.max()) {
            return "option " + o.name() + " [" + v + "] is outside [" + o.min() + ", " + o.max() + "]";
          }
        }
        case STRING -> { }
      }
    } catch (NumberFormatException e) {
      return "option " + o.name() + " [" + v + "] is not a number";
    }
    return null;
  }

  private static String didYouMean(String key, Iterable<String> known) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String k : known) {
      int d = distance(key, k);
      if (d < bestDistance) {
        bestDistance = d;
        best = k;
      }
    }
    return best != null && bestDistance <= Math.max(2, key.length() / 3) ? ", did you mean [" + best + "]?" : "";
  }

  private static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int sub = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        cur[j] = Math.min(sub, Math.min(prev[j] + 1, cur[j - 1] + 1));
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }

  private String raw(String name) {
    if (!declared.containsKey(name)) {
      throw new IllegalStateException(plugin + " reads undeclared option [" + name + "]");
    }
    return values.get(name);
  }

  public String string(String name) {
    return raw(name);
  }

  public boolean bool(String name) {
    return Boolean.parseBoolean(raw(name));
  }

  public long integer(String name) {
    return Long.parseLong(raw(name));
  }

  public double real(String name) {
    return Double.parseDouble(raw(name));
  }

  /** All values including defaults, sorted by name (for provenance). */
  public ImmutableMap<String, String> asMap() {
    return ImmutableMap.copyOf(values);
  }
}

package org.lockvisor.locking.builtin;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.lockvisor.core.plugin.PluginOption;

/**
 * A plugin's options checked against what it declares: unknown keys (all of them, with "did you
 * mean") and bad values are caller errors; absent keys take the declared defaults.
 */
final class Options {
  private final String plugin;
  private final Map<String, PluginOption> declared = new TreeMap<>();
  private final Map<String, String> values;

  Options(String plugin, List<PluginOption> options, Map<String, String> given) {
    this.plugin = plugin;
    for (PluginOption o : options) {
      declared.put(o.name(), o);
    }
    this.values = given == null ? Map.of() : given;
    List<String> unknown = new ArrayList<>();
    for (String k : new TreeMap<>(this.values).keySet()) {
      if (!declared.containsKey(k)) {
        unknown.add("[" + k + "]" + didYouMean(k));
      }
    }
    checkArgument(unknown.isEmpty(), "%s: unknown option(s) %s; known: %s", plugin, String.join(", ", unknown),
        declared.keySet());
  }

  private String didYouMean(String k) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String d : declared.keySet()) {
      int dist = distance(k, d);
      if (dist < bestDistance) {
        bestDistance = dist;
        best = d;
      }
    }
    return best != null && bestDistance <= Math.max(2, k.length() / 3) ? " (did you mean [" + best + "]?)" : "";
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
        int c = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + c);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }

  private String raw(String key) {
    PluginOption o = declared.get(key);
    checkArgument(o != null, "%s declares no option [%s]", plugin, key);
    String v = values.get(key);
    return v == null ? o.defaultValue() : v.trim();
  }

  boolean bool(String key) {
    String v = raw(key);
    checkArgument(v.equals("true") || v.equals("false"), "%s: option [%s] must be true or false: [%s]", plugin, key, v);
    return Boolean.parseBoolean(v);
  }

  String choice(String key) {
    String v = raw(key);
    PluginOption o = declared.get(key);
    checkArgument(o.allowed().isEmpty() || o.allowed().contains(v), "%s: option [%s] has bad value [%s]; allowed: %s",
        plugin, key, v, o.allowed());
    return v;
  }

  long integer(String key) {
    String v = raw(key);
    PluginOption o = declared.get(key);
    long n;
    try {
      n = Long.parseLong(v);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(plugin + ": option [" + key + "] must be an integer: [" + v + "]", e);
    }
    checkArgument(n >= o.min() && n <= o.max(), "%s: option [%s] = [%s] is outside [%s, %s]", plugin, key, n,
        (long) o.min(), (long) o.max());
    return n;
  }
}

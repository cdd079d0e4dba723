package org.lockvisor.core.plugin;

import com.google.common.collect.ImmutableSortedMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The one option binder every plugin kind shares: checks the option values a user gave (from an
 * experiment file, the command line or a test) against what the plugin declares, and binds them
 * to typed values with the declared defaults.
 *
 * <p>Strict, after Airlift's configuration: an unknown key is an error naming the known keys with
 * "did you mean" ({@link DidYouMean}); every problem is reported at once. Values by type:
 * <ul>
 *   <li>{@code BOOLEAN}: {@code true} or {@code false} (any case);
 *   <li>{@code INTEGER}: a whole number within the declared range;
 *   <li>{@code DURATION_NS}: the one duration form of {@link Durations} — whole nanoseconds or a
 *       number with {@code ns}, {@code us}, {@code ms} or {@code s} — within the declared range;
 *   <li>{@code DOUBLE}: a number within the declared range;
 *   <li>{@code ENUM}: one of the declared values (any case; bound to the declared spelling);
 *   <li>{@code STRING}: anything.
 * </ul>
 * Bound values are normalized (durations in whole ns, booleans lower case), so a plugin reads
 * them with {@link BoundOptions}'s typed getters and never parses text itself.
 */
public final class OptionBinder {
  private OptionBinder() {}

  /**
   * Binds {@code given} to {@code plugin}'s declared options.
   *
   * @throws IllegalArgumentException one line listing every problem, prefixed with the plugin
   */
  public static BoundOptions bind(Plugin plugin, Map<String, String> given) {
    return bind(plugin.kind() + " " + plugin.name(), plugin.options(), given);
  }

  /**
   * Binds {@code given} to {@code declared}; {@code label} names the plugin in messages (e.g.
   * {@code lock mutex-owner}).
   *
   * @throws IllegalArgumentException one line listing every problem
   */
  public static BoundOptions bind(String label, List<PluginOption> declared, Map<String, String> given) {
    Map<String, String> problems = problems("", declared, given);
    if (!problems.isEmpty()) {
      List<String> lines = new ArrayList<>();
      problems.forEach((key, problem) -> lines.add(problem.startsWith("unknown ") ? problem
          : "option [" + key + "] " + problem));
      throw new IllegalArgumentException(label + ": " + String.join("; ", lines));
    }
    Map<String, PluginOption> byName = byName(declared);
    TreeMap<String, String> values = new TreeMap<>();
    for (PluginOption o : declared) {
      values.put(o.name(), normalize(o, o.defaultValue()));
    }
    if (given != null) {
      given.forEach((k, v) -> values.put(k, normalize(byName.get(k), v)));
    }
    return new BoundOptions(label, ImmutableSortedMap.copyOf(byName),
        ImmutableSortedMap.copyOf(values), given == null ? ImmutableSortedMap.of() : ImmutableSortedMap.copyOf(given));
  }

  /**
   * Every problem of {@code given} against {@code declared}, by key, in key order ({@code label}
   * names the plugin in unknown-key messages, may be empty): an unknown key
   * ({@code unknown <label> option [k]; known: [...declaration order]; did you mean [...]?}) or a bad value
   * ({@code [v] is out of range; allowed: [1, 8]}). Empty when everything binds.
   */
  public static ImmutableSortedMap<String, String> problems(String label, List<PluginOption> declared,
      Map<String, String> given) {
    Map<String, PluginOption> byName = byName(declared);
    TreeMap<String, String> problems = new TreeMap<>();
    if (given == null) {
      return ImmutableSortedMap.of();
    }
    for (Map.Entry<String, String> e : new TreeMap<>(given).entrySet()) {
      PluginOption o = byName.get(e.getKey());
      if (o == null) {
        problems.put(e.getKey(), "unknown " + (label.isEmpty() ? "" : label + " ") + "option [" + e.getKey() + "]; known: " + byName.keySet()
            + DidYouMean.hint(e.getKey(), byName.keySet()));
        continue;
      }
      String problem = checkValue(o, e.getValue());
      if (problem != null) {
        problems.put(e.getKey(), problem);
      }
    }
    return ImmutableSortedMap.copyOf(problems);
  }

  /** What is wrong with {@code raw} as a value of {@code o}, or null when it binds. */
  public static String checkValue(PluginOption o, String raw) {
    String v = raw == null ? "" : raw.trim();
    switch (o.type()) {
      case BOOLEAN, ENUM -> {
        if (declaredSpelling(o, v) == null) {
          return "[" + v + "] is not one of " + o.allowed() + DidYouMean.hint(v, o.allowed());
        }
      }
      case INTEGER -> {
        long n;
        try {
          n = Long.parseLong(v);
        } catch (NumberFormatException e) {
          return "[" + v + "] is not a whole number; allowed: [" + (long) o.min() + ", " + (long) o.max() + "]";
        }
        if (n < o.min() || n > o.max()) {
          return "[" + v + "] is out of range; allowed: [" + (long) o.min() + ", " + (long) o.max() + "]";
        }
      }
      case DURATION_NS -> {
        long n = Durations.parse(v);
        if (n < 0) {
          return "[" + v + "] is not a duration (" + Durations.FORM + "); allowed: ["
              + Durations.format((long) o.min()) + ", " + Durations.format((long) o.max()) + "]";
        }
        if (n < o.min() || n > o.max()) {
          return "[" + v + "] is out of range; allowed: [" + Durations.format((long) o.min()) + ", "
              + Durations.format((long) o.max()) + "]";
        }
      }
      case DOUBLE -> {
        double d;
        try {
          d = Double.parseDouble(v);
        } catch (NumberFormatException e) {
          return "[" + v + "] is not a number; allowed: [" + o.min() + ", " + o.max() + "]";
        }
        if (!(d >= o.min() && d <= o.max())) {
          return "[" + v + "] is out of range; allowed: [" + o.min() + ", " + o.max() + "]";
        }
      }
      case STRING -> { }
    }
    return null;
  }

  /**
   * {@code raw} as the plugin reads it: durations in whole ns, booleans in lower case, enum
   * values in their declared spelling; a value that does not bind is returned trimmed.
   */
  public static String normalize(PluginOption o, String raw) {
    String v = raw == null ? "" : raw.trim();
    switch (o.type()) {
      case DURATION_NS -> {
        long n = Durations.parse(v);
        return n >= 0 ? Long.toString(n) : v;
      }
      case BOOLEAN, ENUM -> {
        String d = declaredSpelling(o, v);
        return d == null ? v : d;
      }
      default -> {
        return v;
      }
    }
  }

  /** {@code given} with every bindable value normalized (unknown keys kept as given). */
  public static ImmutableSortedMap<String, String> normalize(List<PluginOption> declared, Map<String, String> given) {
    Map<String, PluginOption> byName = byName(declared);
    TreeMap<String, String> out = new TreeMap<>();
    if (given != null) {
      given.forEach((k, v) -> {
        PluginOption o = byName.get(k);
        out.put(k, o == null ? (v == null ? "" : v.trim()) : normalize(o, v));
      });
    }
    return ImmutableSortedMap.copyOf(out);
  }

  private static String declaredSpelling(PluginOption o, String v) {
    for (String a : o.allowed()) {
      if (a.equals(v)) {
        return a;
      }
    }
    for (String a : o.allowed()) {
      if (a.toLowerCase(Locale.ROOT).equals(v.toLowerCase(Locale.ROOT))) {
        return a;
      }
    }
    return null;
  }

  /** Declaration order: "known" lists read like {@code plugins --options}. */
  private static Map<String, PluginOption> byName(List<PluginOption> declared) {
    Map<String, PluginOption> byName = new java.util.LinkedHashMap<>();
    for (PluginOption o : declared) {
      byName.put(o.name(), o);
    }
    return byName;
  }
}

package org.lockvisor.core.plugin;

import java.math.BigDecimal;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one spelling of a duration, everywhere a user writes one (experiment files, plugin
 * options, {@code --set}): a whole number of nanoseconds, or a number with a unit {@code ns},
 * {@code us}, {@code ms} or {@code s} ({@code 500ns}, {@code 2us}, {@code 10ms}, {@code 1.5s}).
 * A value that is not a whole number of nanoseconds ({@code 1.5ns}) is refused, never rounded.
 */
public final class Durations {
  private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ns|us|ms|s)?");

  /** How the accepted form is described in error messages. */
  public static final String FORM = "ns, or a number with ns/us/ms/s";

  private Durations() {}

  /** The duration in ns, or -1 if {@code text} is not a duration (or does not fit a long). */
  public static long parse(String text) {
    if (text == null) {
      return -1;
    }
    Matcher m = DURATION.matcher(text.trim().toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      return -1;
    }
    String unit = m.group(2) == null ? "ns" : m.group(2);
    long scale = switch (unit) {
      case "us" -> 1_000L;
      case "ms" -> 1_000_000L;
      case "s" -> 1_000_000_000L;
      default -> 1L;
    };
    try {
      BigDecimal ns = new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(scale));
      if (ns.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0 || ns.stripTrailingZeros().scale() > 0) {
        return -1;
      }
      return ns.longValueExact();
    } catch (ArithmeticException e) {
      return -1;
    }
  }

  /** The shortest exact spelling: {@code 10ms}, {@code 1500us}, {@code 7ns}. */
  public static String format(long ns) {
    if (ns != 0 && ns % 1_000_000_000L == 0) {
      return ns / 1_000_000_000L + "s";
    }
    if (ns != 0 && ns % 1_000_000L == 0) {
      return ns / 1_000_000L + "ms";
    }
    if (ns != 0 && ns % 1_000L == 0) {
      return ns / 1_000L + "us";
    }
    return ns + "ns";
  }
}

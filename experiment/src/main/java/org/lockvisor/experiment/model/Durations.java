package org.lockvisor.experiment.model;

/**
 * Durations as experiments write them; the one definition is {@link
 * org.lockvisor.core.plugin.Durations} (plugin options and experiment files share it).
 */
public final class Durations {
  private Durations() {}

  /** The duration in ns, or -1 if {@code text} is not a duration. */
  public static long parse(String text) {
    return org.lockvisor.core.plugin.Durations.parse(text);
  }

  /** The shortest exact spelling: {@code 10ms}, {@code 1500us}, {@code 7ns}. */
  public static String format(long ns) {
    return org.lockvisor.core.plugin.Durations.format(ns);
  }
}

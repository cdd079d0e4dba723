package org.lockvisor.arch.builtin;

import com.google.common.collect.ImmutableList;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/** "Did you mean" suggestions by Levenshtein distance, case-insensitive (Airlift ConfigurationDidYouMean). */
final class DidYouMean {

  private static final int MAX_SUGGESTIONS = 3;

  private DidYouMean() {}

  /** Candidates close to {@code input}, nearest first, ties by name; empty when nothing is close. */
  static ImmutableList<String> suggest(String input, Iterable<String> candidates) {
    String needle = input.toLowerCase(Locale.ROOT);
    // A typo budget that grows with the word: 2 edits for short names, a third of long ones.
    int budget = Math.max(2, needle.length() / 3);
    record Scored(String name, int distance) {}
    List<Scored> close = new ArrayList<>();
    for (String c : candidates) {
      int d = levenshtein(needle, c.toLowerCase(Locale.ROOT));
      // d < length: a suggestion must keep something of the candidate ("X" is not a typo of "B").
      if (d <= budget && d < c.length()) {
        close.add(new Scored(c, d));
      }
    }
    return close.stream()
        .sorted(Comparator.comparingInt(Scored::distance).thenComparing(Scored::name))
        .limit(MAX_SUGGESTIONS)
        .map(Scored::name)
        .collect(ImmutableList.toImmutableList());
  }

  /** {@code "; did you mean [a, b]?"}, or empty. */
  static String hint(String input, Iterable<String> candidates) {
    ImmutableList<String> s = suggest(input, candidates);
    return s.isEmpty() ? "" : "; did you mean " + s + "?";
  }

  /** The one edit distance of the framework ({@link org.lockvisor.core.plugin.DidYouMean#levenshtein}). */
  static int levenshtein(String a, String b) {
    return org.lockvisor.core.plugin.DidYouMean.levenshtein(a, b);
  }
}

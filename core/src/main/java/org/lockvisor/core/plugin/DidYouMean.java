package org.lockvisor.core.plugin;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSortedSet;
import java.util.Collection;
import java.util.Locale;

/**
 * Suggestions for a mistyped name, by Levenshtein distance, and the one message format every
 * "unknown X" error uses: {@code unknown lock [qspinlok]; known: [mcs, qspinlock, ticket]; did
 * you mean [qspinlock]?}. Plugin choice and configuration validation share it so users see one
 * shape of error everywhere (after Airlift's {@code ConfigurationDidYouMean}).
 */
public final class DidYouMean {

  private DidYouMean() {}

  /**
   * The known names closest to {@code input}, sorted, or an empty list if none is close enough to
   * be a plausible typo. Comparison ignores case, so {@code Ticket} suggests {@code ticket}.
   */
  public static ImmutableList<String> suggestions(String input, Collection<String> known) {
    checkArgument(input != null, "input must not be null");
    String needle = input.toLowerCase(Locale.ROOT);
    // A third of the length (at least 2) accepts one or two typos in a short name without
    // suggesting unrelated short names ("mcs" for "tas").
    int threshold = Math.max(2, needle.length() / 3);
    int best = Integer.MAX_VALUE;
    ImmutableSortedSet.Builder<String> closest = null;
    for (String candidate : ImmutableSortedSet.copyOf(known)) {
      int distance = levenshtein(needle, candidate.toLowerCase(Locale.ROOT));
      if (distance > threshold || distance > best) {
        continue;
      }
      if (distance < best) {
        best = distance;
        closest = ImmutableSortedSet.naturalOrder();
      }
      closest.add(candidate);
    }
    return closest == null ? ImmutableList.of() : closest.build().asList();
  }

  /**
   * {@code unknown <what> [<input>]; known: [<sorted known>]} followed by {@code ; did you mean
   * [<suggestions>]?} when a known name is close.
   */
  public static String unknownMessage(String what, String input, Collection<String> known) {
    StringBuilder message = new StringBuilder()
        .append("unknown ").append(what).append(" [").append(input).append("]; known: ")
        .append(ImmutableSortedSet.copyOf(known));
    return message.append(hint(input, known)).toString();
  }

  /**
   * {@code ; did you mean [<suggestions>]?} when a known name is close to {@code input}, else the
   * empty string: the tail of every "unknown" or "not one of" message.
   */
  public static String hint(String input, Collection<String> known) {
    ImmutableList<String> suggestions = suggestions(input, known);
    return suggestions.isEmpty() ? "" : "; did you mean " + suggestions + "?";
  }

  /** Edit distance (insertions, deletions, substitutions) between two strings. */
  public static int levenshtein(CharSequence a, CharSequence b) {
    int[] previous = new int[b.length() + 1];
    int[] current = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int substitution = previous[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(substitution, Math.min(previous[j], current[j - 1]) + 1);
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[b.length()];
  }
}

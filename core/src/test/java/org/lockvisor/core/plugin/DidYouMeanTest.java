package org.lockvisor.core.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Suggestions are the closest known names within a typo-sized distance; the message has the house shape. */
class DidYouMeanTest {

  private static final List<String> LOCKS = List.of("ticket", "qspinlock", "mcs", "pv-qspinlock");

  @Test
  void levenshtein_knownDistances() {
    assertThat(DidYouMean.levenshtein("", "abc")).isEqualTo(3);
    assertThat(DidYouMean.levenshtein("kitten", "sitting")).isEqualTo(3);
    assertThat(DidYouMean.levenshtein("qspinlok", "qspinlock")).isEqualTo(1);
    assertThat(DidYouMean.levenshtein("same", "same")).isZero();
  }

  @Test
  void suggestions_oneTypo_closestOnly() {
    assertThat(DidYouMean.suggestions("qspinlok", LOCKS)).containsExactly("qspinlock");
  }

  @Test
  void suggestions_ignoreCase() {
    assertThat(DidYouMean.suggestions("TICKET", LOCKS)).containsExactly("ticket");
  }

  @Test
  void suggestions_tiesAreAllReturnedSorted() {
    assertThat(DidYouMean.suggestions("ab", List.of("ax", "xb", "abcdef"))).containsExactly("ax", "xb");
  }

  @Test
  void suggestions_nothingClose_empty() {
    assertThat(DidYouMean.suggestions("rwsem-xadd", LOCKS)).isEmpty();
    assertThat(DidYouMean.suggestions("anything", List.of())).isEmpty();
  }

  @Test
  void unknownMessage_withSuggestion_houseFormat() {
    assertThat(DidYouMean.unknownMessage("lock", "qspinlok", List.of("ticket", "qspinlock", "mcs")))
        .isEqualTo("unknown lock [qspinlok]; known: [mcs, qspinlock, ticket]; did you mean [qspinlock]?");
  }

  @Test
  void hint_closeOrNot_tailOrEmpty() {
    assertThat(DidYouMean.hint("tiket", List.of("ticket", "mcs"))).isEqualTo("; did you mean [ticket]?");
    assertThat(DidYouMean.hint("xyzzy", List.of("ticket", "mcs"))).isEmpty();
  }

  @Test
  void unknownMessage_withoutSuggestion_noQuestion() {
    assertThat(DidYouMean.unknownMessage("reproduction", "r9", List.of()))
        .isEqualTo("unknown reproduction [r9]; known: []");
  }
}

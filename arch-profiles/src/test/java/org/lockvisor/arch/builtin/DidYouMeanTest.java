package org.lockvisor.arch.builtin;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Property: suggestions are close candidates, nearest first, case-insensitive, never wholesale replacements. */
class DidYouMeanTest {

  @Test
  void levenshtein_knownDistances() {
    assertThat(DidYouMean.levenshtein("kitten", "sitting")).isEqualTo(3);
    assertThat(DidYouMean.levenshtein("", "abc")).isEqualTo(3);
    assertThat(DidYouMean.levenshtein("same", "same")).isZero();
  }

  @Test
  void suggest_typo_nearestFirst() {
    assertThat(DidYouMean.suggest("qspinlok", List.of("ticket", "qspinlock", "pv-qspinlock")))
        .containsExactly("qspinlock");
  }

  @Test
  void suggest_caseOnlyDifference_found() {
    assertThat(DidYouMean.suggest("atomic_rmw", List.of("ATOMIC_RMW", "PAUSE"))).containsExactly("ATOMIC_RMW");
  }

  @Test
  void suggest_singleLetterMismatch_nothing() {
    assertThat(DidYouMean.suggest("X", List.of("V", "B", "M", "E"))).isEmpty();
    assertThat(DidYouMean.hint("X", List.of("V", "B"))).isEmpty();
  }
}

package org.lockvisor.core.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The schedule-exploration hook: a tie-break salt permutes events due at the same time, keeps
 * time order, is a pure function of the salt, and leaves cancellation intact.
 */
class TieBreakSaltTest {

  private static List<Long> order(long salt, int n, boolean cancelOdd) {
    Simulation sim = new Simulation(1);
    if (salt != 0) {
      sim.setTieBreakSalt(salt);
    }
    List<Long> seen = new ArrayList<>();
    EventHandler h = (kind, arg) -> seen.add(arg);
    List<Long> handles = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      handles.add(sim.schedule(i < n / 2 ? 10 : 20, h, 0, i));
    }
    if (cancelOdd) {
      for (int i = 1; i < n; i += 2) {
        assertThat(sim.cancel(handles.get(i))).isTrue();
      }
    }
    sim.runToCompletion();
    return seen;
  }

  @Test
  void noSalt_insertionOrder() {
    assertThat(order(0, 8, false)).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L);
  }

  @Test
  void salt_permutesTies_keepsTimeOrder_isRepeatable() {
    List<Long> a = order(12345, 40, false);
    List<Long> b = order(12345, 40, false);
    List<Long> c = order(999, 40, false);

    assertThat(a).isEqualTo(b).containsExactlyInAnyOrderElementsOf(order(0, 40, false));
    assertThat(a.subList(0, 20)).allMatch(x -> x < 20).isNotEqualTo(order(0, 40, false).subList(0, 20));
    assertThat(a.subList(20, 40)).allMatch(x -> x >= 20);
    assertThat(c).isNotEqualTo(a);
  }

  @Test
  void salt_cancelledEventsNeverRun() {
    assertThat(order(77, 40, true)).hasSize(20).allMatch(x -> x % 2 == 0);
  }

  @Test
  void salt_onANonEmptyQueue_refused() {
    Simulation sim = new Simulation(1);
    sim.schedule(1, (k, a) -> {}, 0, 0);
    assertThatThrownBy(() -> sim.setTieBreakSalt(3)).isInstanceOf(IllegalArgumentException.class);
  }
}

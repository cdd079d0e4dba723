package org.lockvisor.core.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The engine advances time event by event, cancels, and fingerprints runs by their events. */
class SimulationTest {

  @Test
  void runUntil_processesInTimeOrder_andStopsAtEnd() {
    Simulation sim = new Simulation(1);
    List<Long> seen = new ArrayList<>();
    EventHandler h = (k, a) -> seen.add(sim.now());
    sim.schedule(30, h, 0, 0);
    sim.schedule(10, h, 0, 0);
    sim.schedule(20, h, 0, 0);
    sim.schedule(50, h, 0, 0);
    sim.runUntil(40);
    assertThat(seen).containsExactly(10L, 20L, 30L);
    assertThat(sim.now()).isEqualTo(40);
    assertThat(sim.pendingEvents()).isEqualTo(1);
  }

  @Test
  void cancel_preventsEvent() {
    Simulation sim = new Simulation(1);
    List<Integer> seen = new ArrayList<>();
    long h = sim.schedule(10, (k, a) -> seen.add(k), 1, 0);
    sim.schedule(20, (k, a) -> seen.add(k), 2, 0);
    assertThat(sim.cancel(h)).isTrue();
    sim.runToCompletion();
    assertThat(seen).containsExactly(2);
  }

  @Test
  void fingerprint_sameSeed_same_differentSeed_different() {
    assertThat(stochasticRun(42)).isEqualTo(stochasticRun(42));
    assertThat(stochasticRun(42)).isNotEqualTo(stochasticRun(43));
  }

  @Test
  void eventBudget_exceeded_throws() {
    Simulation sim = new Simulation(1);
    EventHandler[] self = new EventHandler[1];
    self[0] = (k, a) -> sim.schedule(1, self[0], 0, 0);
    sim.schedule(0, self[0], 0, 0);
    sim.setEventBudget(100);
    assertThatThrownBy(() -> sim.runUntil(1_000_000)).isInstanceOf(EventBudgetExceededException.class);
    assertThat(sim.eventsProcessed()).isEqualTo(100);
  }

  @Test
  void schedule_negativeDelay_rejected() {
    assertThatThrownBy(() -> new Simulation(1).schedule(-1, (k, a) -> {}, 0, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("negative delay");
  }

  /** A stochastic model: each event reschedules itself after a random delay from a named stream. */
  private static long stochasticRun(long seed) {
    Simulation sim = new Simulation(seed);
    SplittableRandom r = sim.streams().get("model/arrivals");
    EventHandler[] self = new EventHandler[1];
    self[0] = (k, a) -> sim.schedule(1 + r.nextInt(100), self[0], k, a + 1);
    for (int i = 0; i < 10; i++) {
      sim.schedule(r.nextInt(100), self[0], i, 0);
    }
    sim.runUntil(100_000);
    assertThat(sim.eventsProcessed()).isGreaterThan(1000);
    return sim.fingerprint();
  }
}

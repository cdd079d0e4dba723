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

  @Test
  void schedule_delayOverflowingTime_rejected() {
    Simulation sim = new Simulation(1);
    sim.schedule(10, (k, a) -> {}, 0, 0);
    sim.runToCompletion();
    assertThatThrownBy(() -> sim.schedule(Long.MAX_VALUE, (k, a) -> {}, 0, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("overflows");
  }

  @Test
  void fingerprint_matchesIndependentReferenceEngine() {
    // The documented definition, recomputed by a reference engine built on java.util.PriorityQueue:
    // events in (time, insertion order); fp = mix(fp ^ t) + kind * golden + arg, from the golden seed.
    Simulation sim = new Simulation(5);
    SplittableRandom r1 = new SplittableRandom(99);
    EventHandler[] self = new EventHandler[1];
    long[] cancelMe = {EventQueue.NO_EVENT};
    self[0] = (k, a) -> {
      sim.schedule(r1.nextInt(4), self[0], k, a + 1);
      if (r1.nextInt(8) == 0) {
        sim.cancel(cancelMe[0]);
        cancelMe[0] = sim.schedule(r1.nextInt(4), self[0], k + 100, a);
      }
    };
    for (int i = 0; i < 20; i++) {
      sim.schedule(r1.nextInt(4), self[0], i, 0);
    }
    sim.runUntil(5_000);

    record Ev(long time, long seq, int kind, long arg) {}
    java.util.PriorityQueue<Ev> ref = new java.util.PriorityQueue<>(
        (a, b) -> a.time() != b.time() ? Long.compare(a.time(), b.time()) : Long.compare(a.seq(), b.seq()));
    java.util.Set<Long> cancelled = new java.util.HashSet<>();
    SplittableRandom r2 = new SplittableRandom(99);
    long seq = 0;
    long now = 0;
    long cancelSeq = -1;
    for (int i = 0; i < 20; i++) {
      ref.add(new Ev(r2.nextInt(4), seq++, i, 0));
    }
    long fp = 0x9E3779B97F4A7C15L;
    long events = 0;
    while (!ref.isEmpty() && ref.peek().time() <= 5_000) {
      Ev e = ref.poll();
      if (cancelled.remove(e.seq())) {
        continue;
      }
      now = e.time();
      events++;
      fp = Simulation.mix(fp ^ e.time()) + (e.kind() * 0x9E3779B97F4A7C15L) + e.arg();
      ref.add(new Ev(now + r2.nextInt(4), seq++, e.kind(), e.arg() + 1));
      if (r2.nextInt(8) == 0) {
        if (cancelSeq >= 0) {
          cancelled.add(cancelSeq);
        }
        cancelSeq = seq;
        ref.add(new Ev(now + r2.nextInt(4), seq++, e.kind() + 100, e.arg()));
      }
    }
    assertThat(events).isGreaterThan(5_000);
    assertThat(sim.eventsProcessed()).isEqualTo(events);
    assertThat(sim.fingerprint()).isEqualTo(fp);
  }

  @Test
  void fingerprint_manyPendingEvents_matchesIndependentReferenceEngine() {
    // 20,000 pending events, past the size where the event queue splits into two tiers, with
    // delays from ties to far-future ones and cancellations of pending events.
    int pending = 20_000;
    Simulation sim = new Simulation(5);
    SplittableRandom r1 = new SplittableRandom(17);
    EventHandler[] self = new EventHandler[1];
    long[] handles = new long[64];
    self[0] = (k, a) -> {
      sim.schedule(delay(r1), self[0], k, a + 1);
      int c = r1.nextInt(handles.length);
      if (r1.nextInt(4) == 0) {
        sim.cancel(handles[c]);
        handles[c] = sim.schedule(delay(r1), self[0], k + 1_000_000, a);
      }
      if (sim.eventsProcessed() == 300_000) {
        sim.stop();
      }
    };
    for (int i = 0; i < pending; i++) {
      sim.schedule(delay(r1), self[0], i, 0);
    }
    sim.runUntil(1L << 40);

    record Ev(long time, long seq, int kind, long arg) {}
    java.util.PriorityQueue<Ev> ref = new java.util.PriorityQueue<>(
        (a, b) -> a.time() != b.time() ? Long.compare(a.time(), b.time()) : Long.compare(a.seq(), b.seq()));
    java.util.Set<Long> cancelled = new java.util.HashSet<>();
    long[] refHandles = new long[64];
    java.util.Arrays.fill(refHandles, -1);
    SplittableRandom r2 = new SplittableRandom(17);
    long seq = 0;
    for (int i = 0; i < pending; i++) {
      ref.add(new Ev(delay(r2), seq++, i, 0));
    }
    long fp = 0x9E3779B97F4A7C15L;
    long events = 0;
    while (!ref.isEmpty() && ref.peek().time() <= (1L << 40) && events < 300_000) {
      Ev e = ref.poll();
      if (cancelled.remove(e.seq())) {
        continue;
      }
      long now = e.time();
      events++;
      fp = Simulation.mix(fp ^ now) + (e.kind() * 0x9E3779B97F4A7C15L) + e.arg();
      ref.add(new Ev(now + delay(r2), seq++, e.kind(), e.arg() + 1));
      int c = r2.nextInt(refHandles.length);
      if (r2.nextInt(4) == 0) {
        if (refHandles[c] >= 0) {
          cancelled.add(refHandles[c]);
        }
        refHandles[c] = seq;
        ref.add(new Ev(now + delay(r2), seq++, e.kind() + 1_000_000, e.arg()));
      }
    }
    assertThat(events).isEqualTo(300_000);
    assertThat(sim.pendingEvents()).as("still past the split threshold").isGreaterThan(8192);
    assertThat(sim.eventsProcessed()).isEqualTo(events);
    assertThat(sim.fingerprint()).isEqualTo(fp);
  }

  /** Delays of mixed scales: ties, the hold model's 1 us mean, and rare far-future events. */
  private static long delay(SplittableRandom r) {
    int shape = r.nextInt(20);
    if (shape < 4) {
      return r.nextInt(3);
    } else if (shape < 19) {
      return (long) (-Math.log1p(-r.nextDouble()) * 1000);
    }
    return r.nextLong(1L << 36);
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

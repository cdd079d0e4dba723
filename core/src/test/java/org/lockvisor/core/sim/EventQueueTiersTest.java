package org.lockvisor.core.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Randomized differential tests of the event queue's two tiers (heap plus far buckets) against
 * {@link PriorityQueue} over (time, insertion sequence), and against the same queue kept as a
 * single heap. Small tier thresholds make the queue split, refill, split buckets and merge back
 * to a single heap thousands of times per test.
 */
class EventQueueTiersTest {

  private static final Comparator<long[]> TIME_SEQ =
      Comparator.<long[]>comparingLong(e -> e[0]).thenComparingLong(e -> e[1]);

  /** Distinct handler objects, so the test also checks the handler travels with its event. */
  private static final EventHandler[] HANDLERS = new EventHandler[7];

  static {
    for (int i = 0; i < HANDLERS.length; i++) {
      HANDLERS[i] = (k, a) -> {};
    }
  }

  /** A time after {@code now}, from a mix of shapes: ties, short, wide, huge and the end of time. */
  private static long nextTime(SplittableRandom r, long now) {
    int shape = r.nextInt(100);
    long t;
    if (shape < 30) {
      t = now + r.nextLong(3); // many ties
    } else if (shape < 75) {
      t = now + (long) (-Math.log1p(-r.nextDouble()) * 1000); // hold-model increments
    } else if (shape < 90) {
      t = now + r.nextLong(1L << 20);
    } else if (shape < 97) {
      t = now + r.nextLong(1L << 50);
    } else if (shape < 99) {
      t = now + r.nextLong(Long.MAX_VALUE - now);
    } else {
      t = Long.MAX_VALUE;
    }
    return t < 0 ? Long.MAX_VALUE : t;
  }

  /**
   * Runs a random workload on {@code q} and on a reference queue, checking every pop, size, peek
   * and handle; returns the handles and popped args in order, for cross-queue comparison.
   */
  private static List<Long> runAgainstReference(EventQueue q, long seed, int steps, boolean
      earlierPushes) {
    SplittableRandom r = new SplittableRandom(seed);
    PriorityQueue<long[]> ref = new PriorityQueue<>(TIME_SEQ);
    List<long[]> live = new ArrayList<>();
    List<Long> trace = new ArrayList<>();
    long seq = 0;
    long now = 0;
    int phase = 0;
    for (int step = 0; step < steps; step++) {
      // Phases of growth and shrinkage, so the queue splits and merges back many times.
      if (step % 3000 == 0) {
        phase = r.nextInt(3);
      }
      int op = r.nextInt(100);
      int pushBelow = phase == 0 ? 60 : phase == 1 ? 45 : 30;
      if (op < pushBelow) {
        long t = earlierPushes && r.nextInt(20) == 0 ? r.nextLong(now + 1) : nextTime(r, now);
        int kind = r.nextInt(1000);
        int hi = r.nextInt(HANDLERS.length);
        long handle = q.push(t, HANDLERS[hi], kind, seq);
        long[] e = {t, seq++, handle, kind, hi};
        ref.add(e);
        live.add(e);
        trace.add(handle);
        assertThat(q.timeOf(handle)).isEqualTo(t);
      } else if (op < pushBelow + 10 && !live.isEmpty()) {
        long[] e = live.remove(r.nextInt(live.size()));
        assertThat(q.cancel(e[2])).isTrue();
        assertThat(q.cancel(e[2])).as("second cancel").isFalse();
        ref.remove(e);
      } else if (!ref.isEmpty()) {
        assertThat(q.peekTime()).isEqualTo(ref.peek()[0]);
        long[] e = ref.poll();
        live.remove(e);
        q.pop();
        assertThat(q.poppedTime()).isEqualTo(e[0]);
        assertThat(q.poppedArg()).as("insertion order among equal times").isEqualTo(e[1]);
        assertThat(q.poppedKind()).isEqualTo((int) e[3]);
        assertThat(q.poppedHandler()).isSameAs(HANDLERS[(int) e[4]]);
        assertThat(q.timeOf(e[2])).isEqualTo(-1);
        assertThat(q.cancel(e[2])).as("cancel after pop").isFalse();
        now = Math.max(now, e[0] == Long.MAX_VALUE ? now : e[0]);
        trace.add(q.poppedArg());
        // The hold step: the handler schedules its successor (the replace-top path).
        if (r.nextInt(4) != 0) {
          long t = nextTime(r, now);
          long handle = q.push(t, HANDLERS[0], 1, seq);
          long[] s = {t, seq++, handle, 1, 0};
          ref.add(s);
          live.add(s);
          trace.add(handle);
        }
      } else {
        assertThat(q.peekTime()).isEqualTo(Long.MAX_VALUE);
        assertThat(q.isEmpty()).isTrue();
      }
      assertThat(q.size()).isEqualTo(ref.size());
    }
    while (!ref.isEmpty()) {
      long[] e = ref.poll();
      q.pop();
      assertThat(q.poppedTime()).isEqualTo(e[0]);
      assertThat(q.poppedArg()).isEqualTo(e[1]);
      trace.add(q.poppedArg());
    }
    assertThat(q.isEmpty()).isTrue();
    assertThat(q.peekTime()).isEqualTo(Long.MAX_VALUE);
    return trace;
  }

  @Test
  void tiers_smallThresholds_matchReferenceQueue() {
    for (long seed = 1; seed <= 4; seed++) {
      runAgainstReference(new EventQueue(2, 16, 4), seed, 20_000, false);
    }
  }

  @Test
  void tiers_pushesBeforeTheLastPop_matchReferenceQueue() {
    // The queue itself does not require monotone times (Simulation does): an event earlier than
    // the tier bound goes to the heap.
    for (long seed = 11; seed <= 13; seed++) {
      runAgainstReference(new EventQueue(2, 32, 8), seed, 20_000, true);
    }
  }

  @Test
  void tiers_defaultThresholds_largeQueue_matchReferenceQueue() {
    EventQueue q = new EventQueue(16);
    SplittableRandom r = new SplittableRandom(5);
    PriorityQueue<long[]> ref = new PriorityQueue<>(TIME_SEQ);
    long seq = 0;
    for (int i = 0; i < 30_000; i++) {
      long t = (long) (-Math.log1p(-r.nextDouble()) * 1000);
      q.push(t, HANDLERS[0], 0, seq);
      ref.add(new long[] {t, seq++});
    }
    // The hold model with 30,000 pending: far beyond the split threshold.
    for (int i = 0; i < 200_000; i++) {
      long[] e = ref.poll();
      q.pop();
      assertThat(q.poppedTime()).isEqualTo(e[0]);
      assertThat(q.poppedArg()).isEqualTo(e[1]);
      long t = e[0] + (long) (-Math.log1p(-r.nextDouble()) * 1000);
      q.push(t, HANDLERS[0], 0, seq);
      ref.add(new long[] {t, seq++});
    }
    assertThat(q.size()).isEqualTo(30_000);
  }

  @Test
  void tiers_giveTheSameHandlesAndOrderAsASingleHeap() {
    for (long seed = 21; seed <= 23; seed++) {
      List<Long> tiered = runAgainstReference(new EventQueue(2, 16, 4), seed, 20_000, true);
      List<Long> single =
          runAgainstReference(new EventQueue(2, Integer.MAX_VALUE, 4), seed, 20_000, true);
      assertThat(tiered).isEqualTo(single);
    }
  }

  @Test
  void tiers_withTieBreakSalt_sameOrderAsASingleHeap() {
    for (long salt : new long[] {1, 12345, -7}) {
      assertThat(saltedOrder(new EventQueue(2, 16, 4), salt))
          .isEqualTo(saltedOrder(new EventQueue(2, Integer.MAX_VALUE, 4), salt));
    }
  }

  private static List<Long> saltedOrder(EventQueue q, long salt) {
    q.setTieBreakSalt(salt);
    SplittableRandom r = new SplittableRandom(salt);
    List<Long> handles = new ArrayList<>();
    for (int i = 0; i < 2000; i++) {
      handles.add(q.push(r.nextLong(50) * 1000, HANDLERS[0], 0, i));
    }
    for (int i = 0; i < 2000; i += 7) {
      q.cancel(handles.get(i));
    }
    List<Long> order = new ArrayList<>();
    long now = 0;
    while (!q.isEmpty()) {
      q.pop();
      assertThat(q.poppedTime()).isGreaterThanOrEqualTo(now);
      now = q.poppedTime();
      order.add(q.poppedArg());
      if (order.size() < 3000 && order.size() % 3 == 0) {
        q.push(now + r.nextLong(3) * 1000, HANDLERS[0], 0, 10_000 + order.size());
      }
    }
    return order;
  }

  @Test
  void tiers_manyEventsAtTheEndOfTime_keepInsertionOrder() {
    EventQueue q = new EventQueue(2, 16, 4);
    for (int i = 0; i < 100; i++) {
      q.push(Long.MAX_VALUE, HANDLERS[0], 0, i);
      q.push(i, HANDLERS[0], 0, 1000 + i);
    }
    for (int i = 0; i < 100; i++) {
      q.pop();
      assertThat(q.poppedTime()).isEqualTo(i);
      assertThat(q.poppedArg()).isEqualTo(1000 + i);
    }
    for (int i = 0; i < 100; i++) {
      q.pop();
      assertThat(q.poppedTime()).isEqualTo(Long.MAX_VALUE);
      assertThat(q.poppedArg()).isEqualTo(i);
    }
    assertThat(q.isEmpty()).isTrue();
  }
}

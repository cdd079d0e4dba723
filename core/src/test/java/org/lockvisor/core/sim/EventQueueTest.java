package org.lockvisor.core.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The event queue pops in (time, insertion order) and cancels exactly the event of a handle. */
class EventQueueTest {

  private static final EventHandler NOOP = (k, a) -> {};

  @Test
  void pop_sameTime_insertionOrder() {
    EventQueue q = new EventQueue(2);
    for (int i = 0; i < 10; i++) {
      q.push(5, NOOP, i, 0);
    }
    q.push(1, NOOP, 99, 0);
    List<Integer> kinds = new ArrayList<>();
    while (!q.isEmpty()) {
      q.pop();
      kinds.add(q.poppedKind());
    }
    assertThat(kinds).containsExactly(99, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
  }

  @Test
  void pop_randomWorkloadWithCancels_matchesReferenceQueue() {
    SplittableRandom r = new SplittableRandom(7);
    EventQueue q = new EventQueue(4);
    // Reference: java.util.PriorityQueue over (time, seq)
    PriorityQueue<long[]> ref = new PriorityQueue<>((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
    List<long[]> live = new ArrayList<>();
    long seq = 0;
    for (int step = 0; step < 20_000; step++) {
      int op = r.nextInt(10);
      if (op < 5) {
        long t = r.nextLong(1000);
        long h = q.push(t, NOOP, (int) seq, seq);
        long[] e = {t, seq++, h};
        ref.add(e);
        live.add(e);
      } else if (op < 7 && !live.isEmpty()) {
        long[] e = live.remove(r.nextInt(live.size()));
        assertThat(q.cancel(e[2])).isTrue();
        assertThat(q.cancel(e[2])).as("second cancel").isFalse();
        ref.remove(e);
      } else if (!ref.isEmpty()) {
        long[] e = ref.poll();
        live.remove(e);
        q.pop();
        assertThat(q.poppedTime()).isEqualTo(e[0]);
        assertThat(q.poppedArg()).isEqualTo(e[1]);
        assertThat(q.cancel(e[2])).as("cancel after pop").isFalse();
      }
      assertThat(q.size()).isEqualTo(ref.size());
    }
  }

  @Test
  void cancel_staleHandleAfterSlotReuse_doesNotCancelNewEvent() {
    EventQueue q = new EventQueue(1);
    long h1 = q.push(10, NOOP, 1, 0);
    q.pop();
    long h2 = q.push(20, NOOP, 2, 0);
    assertThat(q.cancel(h1)).isFalse();
    assertThat(q.size()).isEqualTo(1);
    assertThat(q.timeOf(h2)).isEqualTo(20);
    assertThat(q.cancel(EventQueue.NO_EVENT)).isFalse();
  }

  @Test
  void pop_empty_throws() {
    assertThatThrownBy(() -> new EventQueue().pop()).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void holdLoop_replaceTopWithTiesAndCancels_matchesReferenceQueue() {
    // Each pop is followed by pushes (the replace-top path), with many equal times and cancels of
    // pending events, so stale roots are both replaced and dropped.
    SplittableRandom r = new SplittableRandom(11);
    EventQueue q = new EventQueue(2);
    PriorityQueue<long[]> ref = new PriorityQueue<>((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
    List<long[]> live = new ArrayList<>();
    long seq = 0;
    long now = 0;
    for (int i = 0; i < 200; i++) {
      long t = r.nextLong(4);
      long[] e = {t, seq, q.push(t, NOOP, 0, seq)};
      seq++;
      ref.add(e);
      live.add(e);
    }
    for (int step = 0; step < 50_000; step++) {
      long[] expected = ref.poll();
      live.remove(expected);
      q.pop();
      assertThat(q.poppedTime()).isEqualTo(expected[0]);
      assertThat(q.poppedArg()).as("insertion order among equal times").isEqualTo(expected[1]);
      now = expected[0];
      int pushes = r.nextInt(10) < 8 ? 1 : r.nextInt(3);
      for (int k = 0; k < pushes; k++) {
        long t = now + r.nextLong(3);
        long[] e = {t, seq, q.push(t, NOOP, 0, seq)};
        seq++;
        ref.add(e);
        live.add(e);
      }
      if (r.nextInt(10) == 0 && !live.isEmpty()) {
        long[] c = live.remove(r.nextInt(live.size()));
        ref.remove(c);
        assertThat(q.cancel(c[2])).isTrue();
      }
      assertThat(q.size()).isEqualTo(ref.size());
      if (ref.isEmpty()) {
        break;
      }
      assertThat(q.peekTime()).isEqualTo(ref.peek()[0]);
    }
  }

  @Test
  void push_negativeTime_rejected() {
    assertThatThrownBy(() -> new EventQueue().push(-1, NOOP, 0, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("negative event time");
  }
}

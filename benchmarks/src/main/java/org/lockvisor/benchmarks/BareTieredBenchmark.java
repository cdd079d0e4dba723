package org.lockvisor.benchmarks;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * A second floor, for information: the hold model on the engine's own two-tier structure without
 * the engine's features. Above 8,192 pending nodes the engine's event queue keeps only the
 * earliest events in its heap and appends later ones to radix buckets over time ({@code
 * EventQueue}'s class comment); {@link BareHeapBenchmark} is a single heap, so at 10⁵ pending it
 * is no longer the same algorithm. This loop is: (time, insertion sequence) nodes, the same 4-ary
 * heap (branch-free least child, replace top), the same far buckets, split and refill rules and
 * thresholds (8,192 and 1,024). It leaves out slots, payload and handles, hence also the
 * engine's batched read of the slot records at a refill, dispatch, the fingerprint and the
 * budget. At 10³ pending it never splits and is the bare heap.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class BareTieredBenchmark {

  private static final int SPLIT_AT = 8192;
  private static final int NEAR_TARGET = 1024;
  private static final int FAR_BUCKETS = 63;

  @Param({"1000", "100000"})
  public int pending;

  @Param({"exponential"})
  public String distribution;

  /** Node i at [2i] (time) and [2i + 1] (sequence); times <= last. */
  private long[] heap;
  private int nodes;
  private long last = Long.MAX_VALUE;
  private final long[][] far = new long[FAR_BUCKETS][];
  private final int[] farSize = new int[FAR_BUCKETS];
  private long farMask;
  private int farCount;
  private long sequence;
  private long[] increments;
  private int next;

  @Setup(Level.Trial)
  public void setUp() {
    HoldModel.checkPending(pending);
    increments = HoldModel.increments(distribution, 42);
    heap = new long[2 * 1024];
    for (int i = 0; i < pending; i++) {
      push(nextIncrement());
    }
  }

  private long nextIncrement() {
    return increments[next++ & HoldModel.TABLE_MASK];
  }

  @Benchmark
  @OperationsPerInvocation(HoldModel.EVENTS_PER_INVOCATION)
  public long hold() {
    long now = 0;
    for (int i = 0; i < HoldModel.EVENTS_PER_INVOCATION; i++) {
      if (nodes == 0) {
        refill();
      }
      now = heap[0];
      long t = now + nextIncrement();
      if (t > last) {
        toFar(t, sequence++);
        removeTop();
      } else {
        siftDown(0, t, sequence++);
      }
    }
    return now;
  }

  private void push(long time) {
    long seq = sequence++;
    if (time > last) {
      toFar(time, seq);
      return;
    }
    if (2 * nodes == heap.length) {
      heap = Arrays.copyOf(heap, 2 * heap.length);
    }
    long[] h = heap;
    int i = nodes++;
    while (i > 0) {
      int parent = (i - 1) >>> 2;
      long pt = h[2 * parent];
      if (time > pt || (time == pt && seq > h[2 * parent + 1])) {
        break;
      }
      h[2 * i] = pt;
      h[2 * i + 1] = h[2 * parent + 1];
      i = parent;
    }
    h[2 * i] = time;
    h[2 * i + 1] = seq;
    if (nodes > SPLIT_AT && last == Long.MAX_VALUE) {
      split();
    }
  }

  private void removeTop() {
    int lastNode = --nodes;
    if (lastNode > 0) {
      siftDown(0, heap[2 * lastNode], heap[2 * lastNode + 1]);
    }
  }

  private void toFar(long t, long key) {
    int b = 63 - Long.numberOfLeadingZeros(t ^ last);
    long[] a = far[b];
    int n = farSize[b];
    if (a == null || 2 * n == a.length) {
      a = a == null ? new long[64] : Arrays.copyOf(a, 2 * a.length);
      far[b] = a;
    }
    a[2 * n] = t;
    a[2 * n + 1] = key;
    farSize[b] = n + 1;
    farMask |= 1L << b;
    farCount++;
  }

  private void split() {
    long[] h = heap;
    int n = nodes;
    last = h[0];
    int kept = 0;
    for (int i = 0; i < n; i++) {
      long t = h[2 * i];
      long key = h[2 * i + 1];
      if (t <= last) {
        h[2 * kept] = t;
        h[2 * kept + 1] = key;
        kept++;
      } else {
        toFar(t, key);
      }
    }
    nodes = kept;
    heapify();
  }

  private void refill() {
    if (farCount <= NEAR_TARGET) {
      for (int b = 0; b < FAR_BUCKETS; b++) {
        append(far[b], 0, farSize[b]);
        farSize[b] = 0;
      }
      farMask = 0;
      farCount = 0;
      last = Long.MAX_VALUE;
      heapify();
      return;
    }
    int b = Long.numberOfTrailingZeros(farMask);
    long[] a = far[b];
    int n = farSize[b];
    farSize[b] = 0;
    farMask &= ~(1L << b);
    farCount -= n;
    if (n <= NEAR_TARGET) {
      append(a, 0, n);
      last |= (2L << b) - 1;
    } else {
      long min = Long.MAX_VALUE;
      for (int i = 0; i < n; i++) {
        min = Math.min(min, a[2 * i]);
      }
      last = min;
      for (int i = 0; i < n; i++) {
        long t = a[2 * i];
        if (t == min) {
          append(a, i, 1);
        } else {
          toFar(t, a[2 * i + 1]);
        }
      }
    }
    heapify();
  }

  private void append(long[] a, int from, int n) {
    if (n == 0) {
      return;
    }
    int need = 2 * (nodes + n);
    if (need > heap.length) {
      heap = Arrays.copyOf(heap, Math.max(need, 2 * heap.length));
    }
    System.arraycopy(a, 2 * from, heap, 2 * nodes, 2 * n);
    nodes += n;
  }

  private void heapify() {
    if (nodes < 2) {
      return;
    }
    long[] h = heap;
    for (int i = (nodes - 2) >>> 2; i >= 0; i--) {
      siftDown(i, h[2 * i], h[2 * i + 1]);
    }
  }

  private void siftDown(int i, long t, long key) {
    long[] h = heap;
    int n = nodes;
    while (true) {
      int first = (i << 2) + 1;
      if (first >= n) {
        break;
      }
      int best = first;
      long bt = h[2 * first];
      long bk = h[2 * first + 1];
      int end = Math.min(first + 4, n);
      for (int c = first + 1; c < end; c++) {
        long ct = h[2 * c];
        long ck = h[2 * c + 1];
        long less = (ct - bt - ((ck - bk) >>> 63)) >> 63;
        best ^= (best ^ c) & (int) less;
        bt ^= (bt ^ ct) & less;
        bk ^= (bk ^ ck) & less;
      }
      if (bt > t || (bt == t && bk > key)) {
        break;
      }
      h[2 * i] = bt;
      h[2 * i + 1] = bk;
      i = best;
    }
    h[2 * i] = t;
    h[2 * i + 1] = key;
  }
}

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
 * heap (branch-free least child, replace top), the same far buckets (chunks of 256 nodes in one
 * pool), split and refill rules and thresholds (8,192 and 1,024). It leaves out slots, payload and handles, hence also the
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
  private static final int CHUNK_BITS = 8;
  private static final int CHUNK = 1 << CHUNK_BITS;
  /** Far buckets: lists of chunks of CHUNK nodes in one pool, as in the engine. */
  private long[] pool = new long[0];
  private int[] chunkNext = new int[0];
  private int freeChunk = -1;
  private int chunksMade;
  private final int[] farHead = new int[FAR_BUCKETS];
  private final int[] farTail = new int[FAR_BUCKETS];
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
    int n = farSize[b];
    int c;
    if ((n & (CHUNK - 1)) == 0) {
      c = newChunk();
      if (n == 0) {
        farHead[b] = c;
      } else {
        chunkNext[farTail[b]] = c;
      }
      farTail[b] = c;
    } else {
      c = farTail[b];
    }
    int i = 2 * ((c << CHUNK_BITS) + (n & (CHUNK - 1)));
    pool[i] = t;
    pool[i + 1] = key;
    farSize[b] = n + 1;
    farMask |= 1L << b;
    farCount++;
  }

  private int newChunk() {
    int c = freeChunk;
    if (c >= 0) {
      freeChunk = chunkNext[c];
      return c;
    }
    c = chunksMade++;
    if (c == chunkNext.length) {
      int n = Math.max(16, 2 * c);
      chunkNext = Arrays.copyOf(chunkNext, n);
      pool = Arrays.copyOf(pool, 2 * CHUNK * n);
    }
    return c;
  }

  private void drainBucket(int b, boolean split) {
    int n = farSize[b];
    int c = farHead[b];
    farSize[b] = 0;
    farMask &= ~(1L << b);
    farCount -= n;
    while (n > 0) {
      int k = Math.min(n, CHUNK);
      int base = 2 * (c << CHUNK_BITS);
      if (!split) {
        append(pool, c << CHUNK_BITS, k);
      } else {
        long bound = last;
        for (int i = 0; i < k; i++) {
          long t = pool[base + 2 * i];
          if (t == bound) {
            append(pool, (c << CHUNK_BITS) + i, 1);
          } else {
            toFar(t, pool[base + 2 * i + 1]);
          }
        }
      }
      n -= k;
      int next = chunkNext[c];
      chunkNext[c] = freeChunk;
      freeChunk = c;
      c = next;
    }
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
        drainBucket(b, false);
      }
      last = Long.MAX_VALUE;
      heapify();
      return;
    }
    int b = Long.numberOfTrailingZeros(farMask);
    int n = farSize[b];
    if (n <= NEAR_TARGET) {
      drainBucket(b, false);
      last |= (2L << b) - 1;
    } else {
      long min = Long.MAX_VALUE;
      int c = farHead[b];
      for (int left = n; left > 0; left -= CHUNK) {
        int base = 2 * (c << CHUNK_BITS);
        for (int i = 0, k = Math.min(left, CHUNK); i < k; i++) {
          min = Math.min(min, pool[base + 2 * i]);
        }
        c = chunkNext[c];
      }
      last = min;
      drainBucket(b, true);
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

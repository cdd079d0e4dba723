package org.lockvisor.benchmarks;

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
 * The floor for {@link EngineHoldBenchmark}: the same hold model on a bare primitive heap with
 * the engine's ordering, (time, insertion sequence), exact. Nodes are (time, sequence) pairs of
 * {@code long}s in one array, 4-ary, with the engine's heap algorithm: the branch-free choice of
 * the least child and the "replace top" hold step (the popped root is overwritten by its
 * successor and sifted down). What it leaves out is exactly what the engine adds: slots with
 * handler, kind and argument, handles and cancellation, handler dispatch, the fingerprint, the
 * event budget, the stop flag and the observer check. The engine's ratio to this loop is the
 * price of those features.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class BareHeapBenchmark {

  @Param({"1000", "100000"})
  public int pending;

  @Param({"exponential"})
  public String distribution;

  /** Node i at [2i] (time) and [2i + 1] (sequence). */
  private long[] heap;
  private int size;
  private long sequence;
  private long[] increments;
  private int next;

  @Setup(Level.Trial)
  public void setUp() {
    HoldModel.checkPending(pending);
    increments = HoldModel.increments(distribution, 42);
    heap = new long[2 * pending];
    size = 0;
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
      now = heap[0];
      siftDown(0, now + nextIncrement(), sequence++);
    }
    return now;
  }

  private void push(long time) {
    long seq = sequence++;
    long[] h = heap;
    int i = size++;
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
  }

  private void siftDown(int i, long t, long key) {
    long[] h = heap;
    int n = size;
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

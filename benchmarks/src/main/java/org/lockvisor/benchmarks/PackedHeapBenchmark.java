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
 * For information beside {@link BareHeapBenchmark}: the hold model on a 4-ary min-heap of single
 * packed {@code long} keys ({@code time << 20 | sequence}). It is not the same ordering as the
 * engine's: the 20-bit sequence wraps after a million insertions (ties are then no longer FIFO)
 * and times must stay below 2^43 ns. It shows what giving up exact (time, sequence) order in a
 * single compare would buy; the engine's ratio is taken against {@link BareHeapBenchmark}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class PackedHeapBenchmark {

  /** 20 bits of sequence break ties FIFO within a window of a million events: enough here. */
  private static final int SEQUENCE_BITS = 20;
  private static final long SEQUENCE_MASK = (1L << SEQUENCE_BITS) - 1;

  @Param({"1000", "100000"})
  public int pending;

  @Param({"exponential"})
  public String distribution;

  private long[] heap;
  private int size;
  private long sequence;
  private long[] increments;
  private int next;

  @Setup(Level.Trial)
  public void setUp() {
    HoldModel.checkPending(pending);
    increments = HoldModel.increments(distribution, 42);
    heap = new long[pending];
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
      now = pop() >>> SEQUENCE_BITS;
      push(now + nextIncrement());
    }
    return now;
  }

  private void push(long time) {
    long key = (time << SEQUENCE_BITS) | (sequence++ & SEQUENCE_MASK);
    int i = size++;
    while (i > 0) {
      int parent = (i - 1) >>> 2;
      long parentKey = heap[parent];
      if (parentKey <= key) {
        break;
      }
      heap[i] = parentKey;
      i = parent;
    }
    heap[i] = key;
  }

  private long pop() {
    long top = heap[0];
    long key = heap[--size];
    int n = size;
    int i = 0;
    while (true) {
      int first = (i << 2) + 1;
      if (first >= n) {
        break;
      }
      int best = first;
      long bestKey = heap[first];
      int end = Math.min(first + 4, n);
      for (int c = first + 1; c < end; c++) {
        if (heap[c] < bestKey) {
          best = c;
          bestKey = heap[c];
        }
      }
      if (bestKey >= key) {
        break;
      }
      heap[i] = bestKey;
      i = best;
    }
    heap[i] = key;
    return top;
  }
}

package org.lockvisor.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.function.LongSupplier;

/**
 * A cross-check of the JMH hold-model figures that a loaded machine disturbs less: it runs the
 * same benchmark bodies (engine, bare heap, bare two-tier queue, packed heap, SSJ) round-robin in one JVM and divides
 * events by the thread's CPU time instead of wall time, so time lost to other processes while
 * this thread is descheduled is not counted (cache and memory-bandwidth contention still is).
 * Prints the median of the rounds after warm-up. Usage: {@code HoldCpuTime [rounds]}.
 */
public final class HoldCpuTime {

  private HoldCpuTime() {}

  public static void main(String[] args) {
    int rounds = 15;
    try {
      if (args.length > 1) {
        throw new NumberFormatException("too many arguments");
      }
      if (args.length == 1) {
        rounds = Integer.parseInt(args[0]);
      }
      if (rounds < 1) {
        throw new NumberFormatException("rounds must be positive");
      }
    } catch (NumberFormatException e) {
      System.err.println("usage: benchmarks/run.sh --cpu-time [rounds] (a positive integer): " + e.getMessage());
      System.exit(2);
      return;
    }
    int warmup = 5;
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    String[] names = {"engine", "bare", "tiered", "packed", "ssj"};
    for (int pending : new int[] {1_000, 100_000}) {
      LongSupplier[] bodies = new LongSupplier[names.length];
      EngineHoldBenchmark engine = new EngineHoldBenchmark();
      engine.pending = pending;
      engine.distribution = "exponential";
      engine.setUp();
      bodies[0] = engine::hold;
      BareHeapBenchmark bare = new BareHeapBenchmark();
      bare.pending = pending;
      bare.distribution = "exponential";
      bare.setUp();
      bodies[1] = bare::hold;
      BareTieredBenchmark tiered = new BareTieredBenchmark();
      tiered.pending = pending;
      tiered.distribution = "exponential";
      tiered.setUp();
      bodies[2] = tiered::hold;
      PackedHeapBenchmark packed = new PackedHeapBenchmark();
      packed.pending = pending;
      packed.distribution = "exponential";
      packed.setUp();
      bodies[3] = packed::hold;
      SsjHoldBenchmark ssj = new SsjHoldBenchmark();
      ssj.pending = pending;
      ssj.distribution = "exponential";
      ssj.setUp();
      bodies[4] = () -> (long) ssj.hold();
      double[][] rates = new double[names.length][rounds];
      long sink = 0;
      for (int r = 0; r < warmup + rounds; r++) {
        for (int b = 0; b < names.length; b++) {
          int invocations = 200;
          long start = mx.getCurrentThreadCpuTime();
          for (int i = 0; i < invocations; i++) {
            sink += bodies[b].getAsLong();
          }
          long cpu = mx.getCurrentThreadCpuTime() - start;
          if (r >= warmup) {
            rates[b][r - warmup] = (double) invocations * HoldModel.EVENTS_PER_INVOCATION / cpu * 1e9;
          }
        }
      }
      double bareMedian = median(rates[1]);
      for (int b = 0; b < names.length; b++) {
        double m = median(rates[b]);
        System.out.printf("cpu-time %-7s pending %-7d %,14.0f events per CPU-second  ratio to bare %.2f%n",
            names[b], pending, m, m / bareMedian);
      }
      if (sink == 42) {
        System.out.println();
      }
    }
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }
}

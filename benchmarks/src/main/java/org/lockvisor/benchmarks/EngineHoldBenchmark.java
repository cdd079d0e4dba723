package org.lockvisor.benchmarks;

import java.util.concurrent.TimeUnit;
import org.lockvisor.core.sim.EventHandler;
import org.lockvisor.core.sim.Simulation;
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
 * The hold model on lockvisor's engine: {@link Simulation#schedule} into its indexed 4-ary heap,
 * dispatch through {@link EventHandler}, fingerprinting, the event budget check. Score = events
 * per second. Compare with {@link BareHeapBenchmark}, the same model on a bare heap of longs.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class EngineHoldBenchmark implements EventHandler {

  @Param({"1000", "100000"})
  public int pending;

  @Param({"exponential"})
  public String distribution;

  private Simulation simulation;
  private long[] increments;
  private int next;
  private int remaining;

  @Setup(Level.Trial)
  public void setUp() {
    HoldModel.checkPending(pending);
    increments = HoldModel.increments(distribution, 42);
    simulation = new Simulation(42);
    for (int i = 0; i < pending; i++) {
      simulation.schedule(nextIncrement(), this, 0, i);
    }
  }

  private long nextIncrement() {
    return increments[next++ & HoldModel.TABLE_MASK];
  }

  @Override
  public void onEvent(int kind, long arg) {
    simulation.schedule(nextIncrement(), this, kind, arg);
    if (--remaining == 0) {
      simulation.stop();
    }
  }

  /** Processes exactly {@link HoldModel#EVENTS_PER_INVOCATION} events; N stays constant. */
  @Benchmark
  @OperationsPerInvocation(HoldModel.EVENTS_PER_INVOCATION)
  public long hold() {
    remaining = HoldModel.EVENTS_PER_INVOCATION;
    simulation.runUntil(Long.MAX_VALUE);
    return simulation.fingerprint();
  }
}

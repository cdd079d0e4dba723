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
import umontreal.ssj.simevents.Event;
import umontreal.ssj.simevents.Simulator;
import umontreal.ssj.simevents.eventlist.Henriksen;

/**
 * The peer: the same hold model on SSJ 3.3.2 with its Henriksen event list. Each of the N events
 * is an SSJ {@link Event} that reschedules itself by the next increment of the shared table, the
 * way an SSJ model is written; nothing is allocated per event. Score = events per second.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class SsjHoldBenchmark {

  @Param({"1000", "100000"})
  public int pending;

  @Param({"exponential"})
  public String distribution;

  private Simulator simulator;
  private long[] increments;
  private int next;
  private int remaining;

  private final class Hold extends Event {
    Hold(Simulator sim) {
      super(sim);
    }

    @Override
    public void actions() {
      schedule(nextIncrement());
      if (--remaining == 0) {
        simulator.stop();
      }
    }
  }

  @Setup(Level.Trial)
  public void setUp() {
    HoldModel.checkPending(pending);
    increments = HoldModel.increments(distribution, 42);
    simulator = new Simulator(new Henriksen());
    simulator.init();
    for (int i = 0; i < pending; i++) {
      new Hold(simulator).schedule(nextIncrement());
    }
  }

  private double nextIncrement() {
    return increments[next++ & HoldModel.TABLE_MASK];
  }

  /** Processes exactly {@link HoldModel#EVENTS_PER_INVOCATION} events; N stays constant. */
  @Benchmark
  @OperationsPerInvocation(HoldModel.EVENTS_PER_INVOCATION)
  public double hold() {
    remaining = HoldModel.EVENTS_PER_INVOCATION;
    simulator.start();
    return simulator.time();
  }
}

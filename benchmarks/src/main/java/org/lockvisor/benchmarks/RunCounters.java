package org.lockvisor.benchmarks;

import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * Secondary results of the per-reproduction benchmarks: simulation events (reported by JMH as
 * events per second of wall time) and simulated nanoseconds (simulated ns per wall second). The
 * primary score is machine runs per second; its inverse is the wall time of one run.
 */
@State(Scope.Thread)
@AuxCounters(AuxCounters.Type.OPERATIONS)
public class RunCounters {
  /** Simulation events processed. */
  public long events;
  /** Simulated time advanced, in ns. */
  public long simulatedNs;

  /** Adds one finished run. */
  public void add(long runEvents, long runSimulatedNs) {
    events += runEvents;
    simulatedNs += runSimulatedNs;
  }
}

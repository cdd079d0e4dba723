package org.lockvisor.benchmarks;

import java.util.concurrent.TimeUnit;
import org.lockvisor.reproductions.QuickScenarios;
import org.lockvisor.reproductions.support.QuickScenario;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * R1 vhost-wakeup, one machine run of its quick scenario per invocation ({@link
 * QuickScenarios#vhostWakeup}: the 4-vCPU guest, iperf with {@code streams} streams over vhost-net,
 * the baseline variant, 150 ms warm-up and 60 ms measured, built from scratch). Scores: runs/s (the
 * inverse is the wall time of a run) and the {@code events} counter, events per wall second.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class VhostQuickBenchmark {

  @Param({"256"})
  public int streams;

  private QuickScenario scenario;

  @Setup
  public void setUp() {
    scenario = QuickScenarios.vhostWakeup(streams);
  }

  @Benchmark
  public long run(RunCounters counters) {
    QuickScenario.Outcome o = scenario.run();
    counters.add(o.events(), o.simulatedNs());
    return o.fingerprint();
  }
}

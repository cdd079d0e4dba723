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
 * R3 vcpu-preempted, one machine run of its quick scenario per invocation ({@link
 * QuickScenarios#vcpuPreempted}: {@code perf bench sched messaging} at the quick scale to
 * completion, the baseline variant, seed 1, with its perf report). Scores: runs/s and the {@code
 * events} counter (events per wall second).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class SchedMessagingQuickBenchmark {

  @Param({"ppc64-powervm"})
  public String platform;

  private QuickScenario scenario;

  @Setup
  public void setUp() {
    scenario = QuickScenarios.vcpuPreempted(platform);
  }

  @Benchmark
  public long run(RunCounters counters) {
    QuickScenario.Outcome o = scenario.run();
    counters.add(o.events(), o.simulatedNs());
    return o.fingerprint();
  }
}

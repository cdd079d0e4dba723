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
 * R2 virtio-blk-notify, one machine run of its quick scenario per invocation ({@link
 * QuickScenarios#virtioBlkNotify}: fio randread on virtio-blk, the baseline variant, the quick plan
 * of 5 ms warm-up and 25 ms measured, on arm64-kvm or x86_64-kvm). Scores: runs/s and the {@code
 * events} counter (events per wall second).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class NotifyQuickBenchmark {

  @Param({"arm64-kvm", "x86_64-kvm"})
  public String arch;

  private QuickScenario scenario;

  @Setup
  public void setUp() {
    scenario = QuickScenarios.virtioBlkNotify(arch);
  }

  @Benchmark
  public long run(RunCounters counters) {
    QuickScenario.Outcome o = scenario.run();
    counters.add(o.events(), o.simulatedNs());
    return o.fingerprint();
  }
}

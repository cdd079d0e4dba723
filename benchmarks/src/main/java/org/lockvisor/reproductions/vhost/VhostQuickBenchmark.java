package org.lockvisor.reproductions.vhost;

import java.util.concurrent.TimeUnit;
import org.lockvisor.benchmarks.RunCounters;
import org.lockvisor.devices.vhostnet.VhostNetConfig.WorkQueue;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;

/**
 * R1 vhost-wakeup, one machine run of its quick scenario per invocation: the 4-vCPU guest, iperf
 * with {@code streams} streams over vhost-net, the baseline variant (wake inside {@code
 * work_lock}), 150 ms warm-up and 60 ms measured, built from scratch (profile, machine, device,
 * workload) as the reproduction does. Lives in the reproduction's package to reach its scenario.
 * Scores: runs/s (the inverse is the wall time of a run) and the {@code events} counter, events
 * per wall second.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class VhostQuickBenchmark {

  @Param({"256"})
  public int streams;

  @Benchmark
  public long run(RunCounters counters) {
    VhostScenario s = new VhostScenario(VhostWakeupReproduction.SEED, VhostWakeupReproduction.GUEST_VCPUS, streams,
        WorkQueue.WAKE_INSIDE_LOCK).run(150_000_000L, 60_000_000L);
    counters.add(s.machine.sim().eventsProcessed(), s.machine.sim().now());
    return s.machine.sim().fingerprint();
  }
}

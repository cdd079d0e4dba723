package org.lockvisor.reproductions.vcpupreempted;

import java.util.concurrent.TimeUnit;
import org.lockvisor.benchmarks.RunCounters;
import org.lockvisor.workloads.schedmessaging.SchedMessagingConfig;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * R3 vcpu-preempted, one machine run of its quick scenario per invocation: {@code perf bench sched
 * messaging} at the quick scale (ppc64-powervm: 8 VPs on 4 processors, 6 groups; x86_64-kvm: 8
 * vCPUs on 4 CPUs, 4 groups) to completion, the baseline variant (no vcpu_is_preempted check),
 * seed 1, with its perf report. Lives in the reproduction's package to reach its scenario. Scores:
 * runs/s and the {@code events} counter (events per wall second).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class SchedMessagingQuickBenchmark {

  @Param({"ppc64-powervm"})
  public String platform;

  private SchedMessagingRun.Platform target;
  private SchedMessagingConfig config;

  @Setup
  public void setUp() {
    VcpuPreemptedReproduction.Scale q = VcpuPreemptedReproduction.QUICK;
    boolean ppc = platform.startsWith("ppc64");
    int cpus = ppc ? q.powervmCpus() : q.kvmCpus();
    target = new SchedMessagingRun.Platform(platform, cpus, 2 * cpus);
    config = SchedMessagingConfig.perfDefaults().withGroups(ppc ? q.powervmGroups() : q.kvmGroups());
  }

  @Benchmark
  public long run(RunCounters counters) {
    SchedMessagingRun.Outcome o = SchedMessagingRun.run(target, false, config, 1, VcpuPreemptedReproduction.QUICK.limitNs());
    if (!o.workload().finished()) {
      throw new IllegalStateException("sched messaging did not finish");
    }
    counters.add(o.events(), o.simulatedNs());
    return o.events();
  }
}

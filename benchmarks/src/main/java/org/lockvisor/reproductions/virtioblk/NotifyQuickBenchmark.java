package org.lockvisor.reproductions.virtioblk;

import java.util.concurrent.TimeUnit;
import org.lockvisor.arch.catalog.ArchProfiles;
import org.lockvisor.arch.spi.ArchProfile;
import org.lockvisor.benchmarks.RunCounters;
import org.lockvisor.devices.spi.CostSource;
import org.lockvisor.devices.virtioblk.VirtioBlkConfig.NotifyMode;
import org.lockvisor.workloads.fio.FioConfig;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * R2 virtio-blk-notify, one machine run of its quick scenario per invocation: fio randread on
 * virtio-blk, the baseline variant (notify inside {@code vq_lock}), the quick plan (5 ms warm-up,
 * 25 ms measured), on arm64-kvm (4 vCPUs, numjobs 4, exits to the VMM under its global lock) or
 * x86_64-kvm (16 vCPUs, numjobs 2, ioeventfd). Lives in the reproduction's package to reach its
 * scenario. Scores: runs/s and the {@code events} counter (events per wall second).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class NotifyQuickBenchmark {

  @Param({"arm64-kvm", "x86_64-kvm"})
  public String arch;

  private ArchProfile profile;
  private CostSource costs;
  private int vcpus;
  private FioConfig fio;

  @Setup
  public void setUp() {
    profile = ArchProfiles.byName(arch);
    costs = CostSource.of(profile);
    boolean arm = arch.startsWith("arm64");
    vcpus = arm ? VirtioBlkNotifyReproduction.ARM_VCPUS : VirtioBlkNotifyReproduction.X86_VCPUS;
    fio = FioConfig.libaio(arm ? VirtioBlkNotifyReproduction.ARM_NUMJOBS : 2, "randread",
        VirtioBlkNotifyReproduction.IODEPTH);
  }

  @Benchmark
  public long run(RunCounters counters) {
    VirtioBlkNotifyReproduction.Plan plan = VirtioBlkNotifyReproduction.plan(true);
    NotifyScenario s = new NotifyScenario(profile, costs, vcpus, NotifyMode.INSIDE_LOCK, fio,
        VirtioBlkNotifyReproduction.SEED).run(plan.warmupMs(), plan.measureMs());
    counters.add(s.machine.sim().eventsProcessed(), s.machine.sim().now());
    return s.machine.sim().fingerprint();
  }
}

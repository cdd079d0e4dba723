package org.lockvisor.reproductions.vcpupreempted;

import org.lockvisor.reproductions.support.QuickScenario;
import org.lockvisor.workloads.schedmessaging.SchedMessagingConfig;

/**
 * R3 vcpu-preempted's quick scenario for {@code QuickScenarios}: {@code perf bench sched messaging}
 * at the quick scale (ppc64-powervm: 8 VPs on 4 processors, 6 groups; x86_64-kvm: 8 vCPUs on 4
 * CPUs, 4 groups) to completion, the baseline variant (no vcpu_is_preempted check), seed 1, with
 * its perf report.
 */
public final class SchedMessagingQuickScenario implements QuickScenario {
  private final SchedMessagingRun.Platform target;
  private final SchedMessagingConfig config;

  private SchedMessagingQuickScenario(SchedMessagingRun.Platform target, SchedMessagingConfig config) {
    this.target = target;
    this.config = config;
  }

  /**
   * @param platform {@code ppc64-powervm} or {@code x86_64-kvm}
   * @throws IllegalArgumentException for another profile
   */
  public static SchedMessagingQuickScenario of(String platform) {
    boolean ppc = "ppc64-powervm".equals(platform);
    if (!ppc && !"x86_64-kvm".equals(platform)) {
      throw new IllegalArgumentException("vcpu-preempted has no quick scenario on [" + platform
          + "]; known: [ppc64-powervm, x86_64-kvm]");
    }
    VcpuPreemptedReproduction.Scale q = VcpuPreemptedReproduction.QUICK;
    int cpus = ppc ? q.powervmCpus() : q.kvmCpus();
    return new SchedMessagingQuickScenario(new SchedMessagingRun.Platform(platform, cpus, 2 * cpus),
        SchedMessagingConfig.perfDefaults().withGroups(ppc ? q.powervmGroups() : q.kvmGroups()));
  }

  @Override
  public Outcome run() {
    SchedMessagingRun.Outcome o = SchedMessagingRun.run(target, false, config, 1,
        VcpuPreemptedReproduction.QUICK.limitNs());
    if (!o.workload().finished()) {
      throw new IllegalStateException("sched messaging did not finish within the quick limit");
    }
    return new Outcome(o.events(), o.simulatedNs(), o.events());
  }
}

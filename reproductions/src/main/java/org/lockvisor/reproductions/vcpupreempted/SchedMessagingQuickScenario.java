package org.lockvisor.reproductions.vcpupreempted;

import java.util.Optional;
import org.lockvisor.experiment.model.Experiment;
import org.lockvisor.experiment.runner.ExperimentResult;
import org.lockvisor.experiment.runner.ExperimentRunner;
import org.lockvisor.reproductions.api.ReproductionOptions;
import org.lockvisor.reproductions.support.QuickScenario;

/**
 * R3 vcpu-preempted's quick scenario for {@code QuickScenarios}: {@code perf bench sched messaging}
 * at the quick scale (ppc64-powervm: 8 VPs on 4 processors, 6 groups; x86_64-kvm: 8 vCPUs on 4
 * CPUs, 4 groups) to completion, the base variant (no vcpu_is_preempted check) of the
 * reproduction's shipped experiment file, seed 1, through the class-path runner: what {@code
 * reproduce vcpu-preempted --quick} runs first on that row.
 */
public final class SchedMessagingQuickScenario implements QuickScenario {
  private final ExperimentRunner runner;
  private final Experiment experiment;

  private SchedMessagingQuickScenario(ExperimentRunner runner, Experiment experiment) {
    this.runner = runner;
    this.experiment = experiment;
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
    // the quick scale: the LPAR's derived paths take their --quick defaults
    ReproductionOptions options = new ReproductionOptions(true, Optional.empty());
    Scale q = VcpuPreemptedReproduction.QUICK;
    VcpuPreemptedReproduction.Row row = ppc
        ? VcpuPreemptedReproduction.powervm(options, q)
        : VcpuPreemptedReproduction.kvm(options, q);
    ExperimentRunner runner = options.runner();
    return new SchedMessagingQuickScenario(runner, row.experiment().with("seed", "1").experiment(runner));
  }

  @Override
  public Outcome run() {
    ExperimentResult r = runner.run(experiment, "base");
    return new Outcome(r.events(), r.warmupNs() + r.simulatedNs(), Long.parseUnsignedLong(r.fingerprint(), 16));
  }
}

package org.lockvisor.reproductions.virtioblk;

import java.util.HexFormat;
import org.lockvisor.experiment.model.Experiment;
import org.lockvisor.experiment.runner.ExperimentResult;
import org.lockvisor.experiment.runner.ExperimentRunner;
import org.lockvisor.reproductions.api.ReproductionOptions;
import org.lockvisor.reproductions.support.QuickScenario;

/**
 * R2 virtio-blk-notify's quick scenario for {@code QuickScenarios}: fio randread on virtio-blk,
 * the baseline variant (notify inside {@code vq_lock}), the quick plan (5 ms warm-up, 25 ms
 * measured), on arm64-kvm (4 vCPUs, numjobs 4, exits to the VMM under its global lock) or
 * x86_64-kvm (16 vCPUs, numjobs 2, ioeventfd): the reproduction's shipped experiment file,
 * validated once, each {@link #run()} one machine built and run by the experiment runner over
 * lockvisor's own class path.
 */
public final class NotifyQuickScenario implements QuickScenario {
  private final ExperimentRunner runner;
  private final Experiment experiment;

  private NotifyQuickScenario(ExperimentRunner runner, Experiment experiment) {
    this.runner = runner;
    this.experiment = experiment;
  }

  /**
   * @param arch {@code arm64-kvm} or {@code x86_64-kvm}
   * @throws IllegalArgumentException for another profile
   */
  public static NotifyQuickScenario of(String arch) {
    boolean arm = VirtioBlkNotifyReproduction.ARM.equals(arch);
    if (!arm && !VirtioBlkNotifyReproduction.X86.equals(arch)) {
      throw new IllegalArgumentException("virtio-blk-notify has no quick scenario on [" + arch
          + "]; known: [arm64-kvm, x86_64-kvm]");
    }
    ReproductionOptions options = new ReproductionOptions(true, java.util.Optional.empty());
    ExperimentRunner runner = options.runner();
    Experiment e = VirtioBlkNotifyReproduction.experiment(
        arm ? VirtioBlkNotifyReproduction.ARM_FILE : VirtioBlkNotifyReproduction.X86_FILE,
        arm ? VirtioBlkNotifyReproduction.ARM_NUMJOBS : VirtioBlkNotifyReproduction.X86_NUMJOBS[0],
        VirtioBlkNotifyReproduction.plan(true), options).experiment(runner);
    return new NotifyQuickScenario(runner, e);
  }

  @Override
  public Outcome run() {
    ExperimentResult r = runner.run(experiment, "base");
    return new Outcome(r.events(), r.warmupNs() + r.simulatedNs(), HexFormat.fromHexDigitsToLong(r.fingerprint()));
  }
}

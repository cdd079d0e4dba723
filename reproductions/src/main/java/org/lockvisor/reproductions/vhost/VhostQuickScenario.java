package org.lockvisor.reproductions.vhost;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.HexFormat;
import org.lockvisor.experiment.model.Experiment;
import org.lockvisor.experiment.runner.ExperimentResult;
import org.lockvisor.experiment.runner.ExperimentRunner;
import org.lockvisor.reproductions.api.ReproductionOptions;
import org.lockvisor.reproductions.support.QuickScenario;
import org.lockvisor.reproductions.support.ShippedExperiment;

/**
 * R1 vhost-wakeup's quick scenario for {@code QuickScenarios}: the reproduction's quick point of
 * the shipped {@code r1-vhost-wakeup.yaml} (4-vCPU guest, 150 ms warm-up and 60 ms measured) at
 * the given number of iperf streams, the baseline variant (wake inside {@code work_lock}),
 * validated once and run from scratch by the class-path runner as the reproduction runs it. One
 * setting differs from the reproduction's: MTU 1500, the device's default, which the benchmark
 * has always run (issue 17's events/s ratios compare this machine across builds).
 */
public final class VhostQuickScenario implements QuickScenario {
  private final ExperimentRunner runner;
  private final Experiment experiment;

  private VhostQuickScenario(ExperimentRunner runner, Experiment experiment) {
    this.runner = runner;
    this.experiment = experiment;
  }

  public static VhostQuickScenario of(int streams) {
    checkArgument(streams > 0, "streams must be positive: %s", streams);
    ExperimentRunner runner = ReproductionOptions.classPathRunner();
    ShippedExperiment point = ShippedExperiment.load(new VhostWakeupReproduction(), VhostWakeupReproduction.FILE)
        .with("warmup", VhostWakeupReproduction.QUICK_WARMUP)
        .with("duration", VhostWakeupReproduction.QUICK_DURATION)
        .with(VhostWakeupReproduction.STREAMS_PATH, Integer.toString(streams))
        .with(VhostSetup.DEVICE + "mtu", "1500");
    return new VhostQuickScenario(runner, point.experiment(runner));
  }

  @Override
  public Outcome run() {
    ExperimentResult r = runner.run(experiment, "base");
    return new Outcome(r.events(), r.warmupNs() + r.simulatedNs(), HexFormat.fromHexDigitsToLong(r.fingerprint()));
  }
}

package org.lockvisor.examples.nullblk;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.lockvisor.experiment.model.Experiment;
import org.lockvisor.experiment.model.ExperimentPlugins;
import org.lockvisor.experiment.model.ExperimentYaml;
import org.lockvisor.experiment.runner.ExperimentResult;
import org.lockvisor.experiment.runner.ExperimentRunner;

/**
 * examples/experiments/null-blk.yaml runs with the example device found like a built-in, and its
 * completion-nsec bounds fio: IOPS stay under (numjobs x iodepth) / completion-nsec, and a 4x longer
 * timer lowers them.
 */
class NullBlkExperimentTest {

  @Test
  void nullBlkExperiment_iopsBoundedByDepthOverCompletionTime() throws IOException {
    Path file = Path.of("experiments/null-blk.yaml");
    ExperimentRunner runner = new ExperimentRunner(ExperimentPlugins.discover(getClass().getClassLoader()));
    Experiment e = runner.validateTree(file.toString(),
        ExperimentYaml.parse(file.toString(), Files.readAllBytes(file)));

    List<ExperimentResult> results = runner.runAll(file.toString(), e);

    double fast = iops(results, "base");
    double slow = iops(results, "slow");
    assertThat(fast).isPositive().isLessThanOrEqualTo(2 * 4 / 10e-6);
    assertThat(slow).isPositive().isLessThanOrEqualTo(2 * 4 / 40e-6).isLessThan(fast);
  }

  private static double iops(List<ExperimentResult> results, String variant) {
    return results.stream().filter(r -> r.variant().equals(variant)).findFirst().orElseThrow()
        .workload("vm0", "fio").figures().get("iops").doubleValue();
  }
}

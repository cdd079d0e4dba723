package org.lockvisor.experiment.runner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.lockvisor.experiment.model.Experiment;
import org.lockvisor.experiment.model.ExperimentPlugins;
import org.lockvisor.experiment.model.ExperimentYaml;
import org.lockvisor.experiment.model.InvalidExperimentException;

/**
 * The budget on the seed's {@code -g 400} as the reproduction ships it, with the limits of a 1 GiB
 * heap (three quarters: 768 MiB, where the run ended in an out-of-memory error) and of the default
 * heap of a 24 GiB machine (6 GiB, three quarters: 4.5 GiB, where it runs): refused with one
 * problem at the workload's path in the first, accepted in the second.
 */
class MemoryBudgetSeedScaleTest {
  private static final ExperimentPlugins PLUGINS = ExperimentPlugins.discover(
      MemoryBudgetSeedScaleTest.class.getClassLoader());
  private static final Path SEED = Path.of(
      "../reproductions/src/main/resources/org/lockvisor/reproductions/experiments/vcpu-preempted-powervm.yaml");

  private static Experiment seed() throws IOException {
    return ExperimentYaml.read("vcpu-preempted-powervm.yaml", Files.readString(SEED));
  }

  @Test
  void seedG400_overA1GiBHeapsBudget_refusedWithOneProblem() throws IOException {
    Experiment e = seed();
    assertThat(e.vms().get(0).workloads().get(0).options()).containsEntry("groups", "400");

    InvalidExperimentException ex = catchThrowableOfType(
        () -> MemoryBudget.check(e, PLUGINS, 768L << 20, () -> "test: 1 GiB heap"), InvalidExperimentException.class);

    assertThat(ex).isNotNull();
    assertThat(ex.problems()).singleElement().satisfies(p -> {
      assertThat(p.path()).isEqualTo("vms[0].workloads[0]");
      assertThat(p.message()).contains("sched-messaging: 400 groups x 20 fds = 16000 tasks", "over the limit of 768 MiB");
    });
  }

  @Test
  void seedG400_withinA6GiBHeapsBudget_accepted() throws IOException {
    Experiment e = seed();
    assertThatCode(() -> MemoryBudget.check(e, PLUGINS, 4608L << 20, () -> "test: 6 GiB heap")).doesNotThrowAnyException();
  }
}

package org.lockvisor.examples.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.lockvisor.experiment.runner.ExperimentResult;

/** The third-party MCS lock runs in an experiment like a built-in and keeps mutual exclusion. */
class McsTortureExperimentTest {

  @Test
  void mcsAndQspinlock_bothTortured_noFailures() {
    List<ExperimentResult> results = McsTortureExperiment.run(getClass().getClassLoader());

    assertThat(results).extracting(ExperimentResult::variant).containsExactly("base", "qspinlock");
    for (ExperimentResult r : results) {
      var figures = r.workload("vm0", "torture").figures();
      assertThat(figures.get("fail").longValue()).isZero();
      assertThat(figures.get("writes_min").longValue()).as("every writer got the lock").isPositive();
    }
    assertThat(results.get(0).workload("vm0", "torture").nativeReport()).containsEntry("lock", "mcs");
    assertThat(results.get(0).lockStat().text()).contains("vm0/torture/torture_lock:");
  }
}

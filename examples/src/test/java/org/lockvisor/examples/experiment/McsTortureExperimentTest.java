package org.lockvisor.examples.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.experiment.model.Experiment;
import org.lockvisor.experiment.model.ExperimentPlugins;
import org.lockvisor.experiment.runner.ExperimentResult;
import org.lockvisor.experiment.runner.ExperimentRunner;
import org.lockvisor.experiment.runner.LockClassStats;
import org.lockvisor.reports.LockStatReport;

/**
 * The third-party MCS lock runs in an experiment like a built-in and keeps mutual exclusion; its
 * lock-holder preemption figures come from the framework (the plugin has no accounting code).
 */
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
    assertThat(LockStatReport.of(results.get(0).lockStat()).text()).contains("vm0/torture/torture_lock:");
  }

  @Test
  void mcs_overcommittedGuest_reportsHolderPreemptedWaitWithoutAccountingCode() {
    // 8 vCPUs on 2 physical CPUs, holds of 50-100 us: the host preempts vCPUs that hold the lock
    Experiment e = Experiment.builder("mcs-lhp").arch("x86_64-kvm").seed(5).warmupNs(1_000_000)
        .durationNs(20_000_000).host(2, "cfs")
        .vm("vm0", vm -> vm.vcpus(8).pinning(0, 1, 0, 1, 0, 1, 0, 1).spinlock("mcs")
            .workload("torture", "locktorture", Map.of("nwriters", "8", "hold-ns", "50us", "hold-jitter-ns", "50us",
                "think-ns", "20us")))
        .build();
    ExperimentResult r = new ExperimentRunner(ExperimentPlugins.discover(getClass().getClassLoader()))
        .runAll("test", e).get(0);
    LockClassStats mcs = r.lockStat().classes().stream()
        .filter(c -> c.className().equals("vm0/torture/torture_lock")).findFirst().orElseThrow();
    assertThat(r.workload("vm0", "torture").nativeReport()).containsEntry("lock", "mcs");
    assertThat(mcs.contentions()).isPositive();
    assertThat(mcs.holderPreemptedWaitNs()).as("wait while the holder's vCPU was preempted").isPositive()
        .isLessThanOrEqualTo(mcs.waitTotalNs());
  }
}

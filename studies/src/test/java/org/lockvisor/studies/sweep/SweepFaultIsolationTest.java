package org.lockvisor.studies.sweep;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lockvisor.experiment.model.Experiment;
import org.lockvisor.experiment.model.ExperimentPlugins;
import org.lockvisor.experiment.runner.ExperimentRunner;
import org.lockvisor.workloads.spi.WorkloadFactory;

/**
 * In a sweep, a point whose plugin throws fails alone: the other points complete, the failure is
 * recorded in the merged result, and a resumed sweep retries only the failed point. (The faulty
 * workload is a copy of the experiment module's test fixture of the same name.)
 */
class SweepFaultIsolationTest {

  @TempDir
  Path dir;

  private static final ExperimentPlugins PLUGINS = withFaulty();

  private static ExperimentPlugins withFaulty() {
    ExperimentPlugins discovered = ExperimentPlugins.discover(SweepFaultIsolationTest.class.getClassLoader());
    Map<String, WorkloadFactory> workloads = new HashMap<>(discovered.workloads());
    workloads.put("faulty", new FaultyWorkloadFactory());
    return new ExperimentPlugins(discovered.arches(), discovered.schedulers(), discovered.locks(),
        discovered.devices(), workloads);
  }

  @Test
  void sweep_failedPointRecorded_othersComplete_resumeRetriesOnlyIt() throws Exception {
    Experiment e = Experiment.builder("faults").warmupNs(100_000).durationNs(1_000_000).host(2, "cfs")
        .vm("vm0", vm -> vm.vcpus(2).workload("w", "faulty", Map.of("fail-in", "never")))
        .sweep("vms[0].workloads[0].options.fail-in", "never", "run", "never")
        .build();
    SweepRunner sweeps = new SweepRunner(new ExperimentRunner(PLUGINS));

    SweepRunner.Outcome outcome = sweeps.run("faults.yaml", e, dir, new SweepRunner.Options(2, 0, 1, false), s -> {});

    assertThat(outcome.complete()).isTrue();
    assertThat(outcome.failed()).hasSize(1);
    assertThat(outcome.failed().get(0)).startsWith("point 1 ").contains("workload [faulty] failed while running");
    JsonNode merged = SweepRunner.merge(List.of(dir), false);
    assertThat(merged.get("failed_points")).hasSize(1);
    assertThat(merged.at("/failed_points/0").asInt()).isEqualTo(1);
    assertThat(merged.at("/points/1/error").asText()).contains("ArrayIndexOutOfBoundsException");
    assertThat(merged.at("/points/0/summary").isObject()).isTrue();
    assertThat(merged.at("/points/2/summary").isObject()).isTrue();

    SweepRunner.Outcome resumed = sweeps.run("faults.yaml", e, dir, new SweepRunner.Options(1, 0, 1, true), s -> {});
    assertThat(resumed.skipped()).isEqualTo(2);
    assertThat(resumed.ran()).isEqualTo(1);
  }
}

package org.lockvisor.experiment.runner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lockvisor.experiment.SimulationFailedException;
import org.lockvisor.experiment.model.Experiment;
import org.lockvisor.experiment.model.ExperimentPlugins;
import org.lockvisor.experiment.runner.faulty.FaultyWorkloadFactory;
import org.lockvisor.workloads.spi.WorkloadFactory;

/**
 * A plugin that throws while being created, started or during the run fails that run with a
 * message naming the plugin, its kind and the phase; in a sweep the other points complete and the
 * failure is recorded in the merged result.
 */
class PluginFaultIsolationTest {

  @TempDir
  Path dir;

  private static final ExperimentPlugins PLUGINS = withFaulty();

  private static ExperimentPlugins withFaulty() {
    ExperimentPlugins discovered = ExperimentPlugins.discover(PluginFaultIsolationTest.class.getClassLoader());
    Map<String, WorkloadFactory> workloads = new HashMap<>(discovered.workloads());
    workloads.put("faulty", new FaultyWorkloadFactory());
    return new ExperimentPlugins(discovered.arches(), discovered.schedulers(), discovered.locks(),
        discovered.devices(), workloads);
  }

  private static Experiment experiment(String failIn) {
    return Experiment.builder("faults").warmupNs(100_000).durationNs(1_000_000).host(2, "cfs")
        .vm("vm0", vm -> vm.vcpus(2).workload("w", "faulty", Map.of("fail-in", failIn)))
        .build();
  }

  @Test
  void throwsWhileCreated_runFailsNamingPluginKindAndPhase() {
    assertThatThrownBy(() -> new ExperimentRunner(PLUGINS).run(experiment("create"), "base"))
        .isInstanceOf(SimulationFailedException.class)
        .hasMessage("workload [faulty] failed while creating vms[0].workloads[0]: "
            + "NullPointerException: table not initialised");
  }

  @Test
  void throwsWhileStarted_phaseIsStarting() {
    assertThatThrownBy(() -> new ExperimentRunner(PLUGINS).run(experiment("start"), "base"))
        .isInstanceOf(SimulationFailedException.class)
        .hasMessage("workload [faulty] failed while starting vms[0].workloads[0]: "
            + "UnsupportedOperationException: no tasks for you");
  }

  @Test
  void throwsFromItsEvent_runFailsNamingThePluginAndTheTime() {
    assertThatThrownBy(() -> new ExperimentRunner(PLUGINS).run(experiment("run"), "base"))
        .isInstanceOf(SimulationFailedException.class)
        .hasMessageStartingWith("experiment [faults] variant [base]: workload [faulty] failed while running at "
            + "t=200000ns: ArrayIndexOutOfBoundsException");
  }

  @Test
  void healthyPlugin_runs() {
    ExperimentResult r = new ExperimentRunner(PLUGINS).run(experiment("never"), "base");
    assertThat(r.events()).isPositive();
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

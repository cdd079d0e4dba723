package org.lockvisor.experiment.runner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.HashMap;
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
 * message naming the plugin, its kind and the phase (a sweep's isolation of a failed point is in
 * the studies module's {@code SweepFaultIsolationTest}).
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
}

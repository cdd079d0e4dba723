package org.lockvisor.reproductions.vhost;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.devices.vhostnet.VhostNetConfig.WorkQueue;
import org.lockvisor.experiment.model.Experiment;
import org.lockvisor.experiment.model.ExperimentPlugins;
import org.lockvisor.experiment.model.ExperimentYaml;
import org.lockvisor.experiment.runner.ExperimentResult;
import org.lockvisor.experiment.runner.ExperimentRunner;

/**
 * examples/experiments/r1-vhost-wakeup.yaml builds the machine of {@code lockvisor reproduce
 * vhost-wakeup}: run through the experiment runner at a quick scale, each variant processes the
 * very same events as {@link VhostScenario} for the same seed, vCPUs and streams (equal event
 * fingerprints), so the headline figures (iperf Gbps, the vhost worker's CPU %) are equal, not
 * merely close.
 */
class VhostYamlEquivalenceTest {
  static final Path FILE = Path.of("../examples/experiments/r1-vhost-wakeup.yaml");
  static final long WARMUP_NS = 30_000_000L;
  static final long MEASURE_NS = 20_000_000L;
  static final int STREAMS = 8;

  private static final ExperimentRunner RUNNER =
      new ExperimentRunner(ExperimentPlugins.discover(VhostYamlEquivalenceTest.class.getClassLoader()));

  /** The example file at the quick scale, as {@code --set} would change it. */
  private static Experiment quickExample() throws IOException {
    ObjectNode tree = (ObjectNode) ExperimentYaml.parse(FILE.toString(), Files.readAllBytes(FILE));
    Map<String, String> overrides = Map.of("warmup", WARMUP_NS + "", "duration", MEASURE_NS + "",
        "vms[0].workloads[0].options.streams", STREAMS + "");
    overrides.forEach((path, value) -> assertThat(ExperimentYaml.set(tree, path, value)).isNull());
    return RUNNER.validateTree(FILE.toString(), tree);
  }

  @Test
  void yamlForm_processesTheReproductionsEvents_sameHeadlineFigures() throws IOException {
    Experiment e = quickExample();
    assertThat(e.seed()).isEqualTo(VhostWakeupReproduction.SEED);
    assertThat(e.vms().get(0).vcpus()).isEqualTo(VhostWakeupReproduction.GUEST_VCPUS);
    String[] variants = {"base", "patched"};
    WorkQueue[] workQueues = {WorkQueue.WAKE_INSIDE_LOCK, WorkQueue.WAKE_OUTSIDE_LOCK};
    double[] cpu = new double[2];
    for (int v = 0; v < 2; v++) {
      Experiment run = v == 0 ? e : ExperimentYaml.variant(e, variants[v]);
      ExperimentResult yaml = RUNNER.run(run, variants[v]);
      VhostScenario own = new VhostScenario(org.lockvisor.arch.catalog.ArchProfiles.byName(VhostScenario.PROFILE),
          VhostWakeupReproduction.SEED, VhostSetup.DEFAULTS, STREAMS, workQueues[v], null).run(WARMUP_NS, MEASURE_NS);

      assertThat(yaml.fingerprint()).as(variants[v] + " event history")
          .isEqualTo(HexFormat.of().toHexDigits(own.machine.sim().fingerprint()));
      assertThat(yaml.events()).isEqualTo(own.machine.sim().eventsProcessed());
      double gbps = yaml.workload("vm0", "iperf").figures().get("throughput_gbps").doubleValue();
      double vhostCpu = yaml.devices().get(0).stats().get("worker_cpu_percent").doubleValue();
      assertThat(gbps).as(variants[v] + " Gbps").isEqualTo(own.iperf.throughputGbps()).isGreaterThan(1);
      assertThat(vhostCpu).as(variants[v] + " vhost CPU %")
          .isEqualTo(own.device.stats().get("worker_cpu_percent").doubleValue()).isGreaterThan(0);
      cpu[v] = yaml.devices().get(0).stats().get("worker_wakes_under_work_lock").doubleValue();
      // counters the device reads from the host kernel are measured from the same reset
      for (var stat : yaml.devices().get(0).stats().entrySet()) {
        if (stat.getKey().startsWith("host.")) {
          assertThat(stat.getValue().doubleValue()).as(variants[v] + " " + stat.getKey()).isNotNegative()
              .isEqualTo(own.device.stats().get(stat.getKey()).doubleValue());
        }
      }
    }
    // the file's override reaches the device: the baseline wakes the worker under work_lock, the patch never
    assertThat(cpu[0]).as("baseline wakes under work_lock").isPositive();
    assertThat(cpu[1]).as("patched wakes under work_lock").isZero();
  }
}

package org.lockvisor.reproductions.vhost;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.experiment.model.Experiment;
import org.lockvisor.experiment.runner.ExperimentResult;
import org.lockvisor.reproductions.api.ReproductionOptions;
import org.lockvisor.reproductions.support.ShippedExperiment;

/**
 * The shipped {@code r1-vhost-wakeup.yaml} holds the seed's setup (the parameters' defaults, the
 * 3.0 kernels), its llist variant runs without a work_lock, and the setup line of the report is
 * read from the experiment as it runs.
 */
class VhostShippedExperimentTest {

  private static final ShippedExperiment FILE =
      ShippedExperiment.load(new VhostWakeupReproduction(), VhostWakeupReproduction.FILE);

  @Test
  void shippedFile_holdsEveryParameterDefault() {
    for (var p : new VhostWakeupReproduction().parameters()) {
      if (p.defaultValue().isEmpty()) {
        continue;
      }
      String path = p.path().orElseThrow(() -> new AssertionError(p.name() + " is bound to no path"));
      String pointer = "/" + path.replaceAll("\\[(\\d+)]", "/$1").replace('.', '/');
      String inFile = FILE.tree().at(pointer).asText();
      assertThat(inFile).as(p.name() + " at " + path).isEqualTo(p.pathValue(p.defaultValue().get()).replace("'", ""));
    }
  }

  @Test
  void describe_readsTheSetupFromTheExperiment() {
    ReproductionOptions o = ReproductionOptions.defaults();
    Experiment e = FILE.with(VhostSetup.DEVICE + "mtu", "1500").with("vms[0].vcpus", "2").experiment(o.runner());
    assertThat(VhostSetup.describe(e, o.runner().plugins())).isEqualTo("MTU 1500, peer 16 RSS queues at 125 us"
        + " moderation, 2 vCPUs, irq-time-accounting off, tun_do_read 3.0, irqfd kworker");
  }

  @Test
  void llistVariant_runsWithoutWorkLock_atLineRate() {
    ShippedExperiment small = FILE.with("warmup", "30ms").with("duration", "20ms")
        .with(VhostWakeupReproduction.STREAMS_PATH, "8");
    ExperimentResult r = small.run(ReproductionOptions.defaults(), "vhost-wakeup", "llist", "llist", null);
    Map<String, Number> d = r.devices().get(0).stats();
    assertThat(d).doesNotContainKey("work_lock.contentions");
    assertThat(r.workloads().get(0).figures().get("throughput_gbps").doubleValue()).isBetween(9.0, 9.95);
  }
}

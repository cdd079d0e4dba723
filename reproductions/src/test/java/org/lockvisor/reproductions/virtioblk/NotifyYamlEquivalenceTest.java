package org.lockvisor.reproductions.virtioblk;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.arch.catalog.ArchProfiles;
import org.lockvisor.arch.spi.ArchProfile;
import org.lockvisor.devices.spi.CostSource;
import org.lockvisor.devices.virtioblk.VirtioBlkConfig;
import org.lockvisor.devices.virtioblk.VirtioBlkConfig.NotifyMode;
import org.lockvisor.experiment.model.Experiment;
import org.lockvisor.experiment.model.ExperimentPlugins;
import org.lockvisor.experiment.model.ExperimentYaml;
import org.lockvisor.experiment.runner.ExperimentResult;
import org.lockvisor.experiment.runner.ExperimentRunner;
import org.lockvisor.workloads.fio.FioConfig;

/**
 * TEMPORARY (issue 18): the shipped experiment files of R2 run through the experiment runner
 * process the very same events as {@link NotifyScenario} for the same seed, vCPUs, numjobs and
 * setup (equal event fingerprints). Goes away with NotifyScenario.
 */
class NotifyYamlEquivalenceTest {
  static final long WARMUP_MS = 2;
  static final long MEASURE_MS = 4;

  private static final ExperimentRunner RUNNER =
      new ExperimentRunner(ExperimentPlugins.discover(NotifyYamlEquivalenceTest.class.getClassLoader()));

  private static Experiment file(String name, Map<String, String> overrides) throws IOException {
    String resource = "org/lockvisor/reproductions/experiments/" + name;
    byte[] bytes;
    try (InputStream in = NotifyYamlEquivalenceTest.class.getClassLoader().getResourceAsStream(resource)) {
      assertThat(in).as(resource).isNotNull();
      bytes = in.readAllBytes();
    }
    ObjectNode tree = (ObjectNode) ExperimentYaml.parse(name, bytes);
    Map<String, String> all = new LinkedHashMap<>();
    all.put("warmup", WARMUP_MS + "ms");
    all.put("duration", MEASURE_MS + "ms");
    all.putAll(overrides);
    all.forEach((path, value) -> assertThat(ExperimentYaml.set(tree, path, value)).as(path).isNull());
    return RUNNER.validateTree(name, tree);
  }

  private static void assertSame(String file, Map<String, String> overrides, String arch, int vcpus, int numjobs,
      NotifyScenario.Setup setup) throws IOException {
    Experiment e = file(file, overrides);
    ArchProfile p = ArchProfiles.byName(arch);
    String[] variants = {"base", "patched"};
    NotifyMode[] modes = {NotifyMode.INSIDE_LOCK, NotifyMode.OUTSIDE_LOCK};
    for (int v = 0; v < 2; v++) {
      ExperimentResult yaml = RUNNER.run(v == 0 ? e : ExperimentYaml.variant(e, variants[v]), variants[v]);
      NotifyScenario own = new NotifyScenario(p, CostSource.of(p), vcpus, modes[v],
          FioConfig.libaio(numjobs, "randread", VirtioBlkNotifyReproduction.IODEPTH), VirtioBlkNotifyReproduction.SEED,
          setup, null).run(WARMUP_MS, MEASURE_MS);
      String what = file + " " + overrides + " " + variants[v];
      assertThat(yaml.events()).as(what + " events").isEqualTo(own.machine.sim().eventsProcessed());
      assertThat(yaml.fingerprint()).as(what + " event history")
          .isEqualTo(HexFormat.of().toHexDigits(own.machine.sim().fingerprint()));
      assertThat(yaml.workload("vm0", "fio").figures().get("iops").doubleValue()).as(what + " iops")
          .isEqualTo(own.iops());
      assertThat(yaml.devices().get(0).stats()).as(what + " device stats").isEqualTo(own.device.stats());
    }
  }

  @Test
  void arm64File_processesTheScenariosEvents() throws IOException {
    assertSame("virtio-blk-notify-arm64.yaml", Map.of(), "arm64-kvm", 4, 4, NotifyScenario.Setup.defaults());
  }

  @Test
  void arm64File_msiTransport_processesTheScenariosEvents() throws IOException {
    var d = NotifyScenario.Setup.defaults();
    assertSame("virtio-blk-notify-arm64.yaml", Map.of("vms[0].devices[0].options.interrupt-transport", "msi"),
        "arm64-kvm", 4, 4, new NotifyScenario.Setup(d.x86Vmm(), VirtioBlkConfig.InterruptTransport.MSI,
            d.queuePolicy(), d.backendServiceNs()));
  }

  @Test
  void x86File_processesTheScenariosEvents() throws IOException {
    assertSame("virtio-blk-notify-x86.yaml", Map.of(), "x86_64-kvm", 16, 2, NotifyScenario.Setup.defaults());
    assertSame("virtio-blk-notify-x86.yaml", Map.of("vms[0].workloads[0].options.numjobs", "8"), "x86_64-kvm", 16, 8,
        NotifyScenario.Setup.defaults());
  }

  @Test
  void x86File_mainLoopAndBackend_processesTheScenariosEvents() throws IOException {
    var d = NotifyScenario.Setup.defaults();
    assertSame("virtio-blk-notify-x86.yaml", Map.of("vms[0].devices[0].options.vmm", "qemu-2.0-main-loop",
            "vms[0].devices[0].options.backend-service-ns", "5us", "vms[0].devices[0].options.queue-policy",
            "last-avail-idx"),
        "x86_64-kvm", 16, 2, new NotifyScenario.Setup(VirtioBlkConfig.Vmm.QEMU_2_0_MAIN_LOOP, null, "last-avail-idx",
            5_000));
  }
}

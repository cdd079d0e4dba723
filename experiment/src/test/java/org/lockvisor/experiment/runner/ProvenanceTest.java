package org.lockvisor.experiment.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.experiment.model.Experiment;
import org.lockvisor.experiment.model.ExperimentPlugins;
import org.lockvisor.experiment.model.ExperimentYaml;

/** The provenance manifest: a config hash that follows content, not layout; every plugin used. */
class ProvenanceTest {

  private static final ExperimentPlugins PLUGINS = ExperimentPlugins.discover(ProvenanceTest.class.getClassLoader());

  private static String hash(String yaml) {
    return Provenance.configHash(ExperimentYaml.parse("test", yaml.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void configHash_ignoresKeyOrderAndFormatting_followsValues() {
    String a = "name: x\nseed: 1\nvms:\n  - name: vm0\n    vcpus: 2\n";
    String reordered = "# a comment\nseed: 1\nvms:\n  - {vcpus: 2, name: vm0}\nname: x\n";
    String otherSeed = "name: x\nseed: 2\nvms:\n  - name: vm0\n    vcpus: 2\n";

    assertThat(hash(reordered)).isEqualTo(hash(a)).matches("[0-9a-f]{64}");
    assertThat(hash(otherSeed)).isNotEqualTo(hash(a));
  }

  @Test
  void plugins_everyPluginTheExperimentAndItsVariantsName_withVersions() {
    Experiment e = Experiment.builder("p").host(2, "cfs")
        .vm("vm0", vm -> vm.vcpus(2).spinlock("pv-qspinlock").workload("t", "locktorture", Map.of()))
        .variant("ticket", Map.of("vms[0].locks.spinlock", "ticket"))
        .build();

    Provenance p = Provenance.of("1.2.3", "abc", ExperimentYaml.parse("t", "name: p\n"), e, PLUGINS);

    assertThat(p.plugins()).extracting(Provenance.PluginUse::name)
        .contains("x86_64-kvm", "cfs", "pv-qspinlock", "ticket", "locktorture")
        .doesNotContain("tas", "fio", "virtio-blk")
        .doesNotHaveDuplicates();
    assertThat(p.plugins()).allSatisfy(u -> assertThat(u.version()).isNotBlank());
    assertThat(p.seed()).isEqualTo(e.seed());
  }
}

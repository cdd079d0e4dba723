package org.lockvisor.experiment.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.experiment.runner.ExperimentRunner;
import org.lockvisor.experiment.runner.ResultJson;

/**
 * The builder and YAML front doors bind to the same model: one experiment written both ways is
 * the same record and produces the same result.json (apart from wall-clock time); the YAML form
 * of a model reads back to the same model.
 */
class ExperimentFrontDoorsTest {

  static final String YAML = """
      name: front-doors
      arch: x86_64-kvm
      seed: 7
      warmup: 1ms
      duration: 4ms
      host:
        cpus: 2
        scheduler: cfs
      vms:
        - name: vm0
          vcpus: 4
          pinning: [0, 1, 0, 1]
          locks:
            spinlock: pv-qspinlock
            vcpu-is-preempted: true
          workloads:
            - name: torture
              type: locktorture
              options: {nwriters: 4, hold-ns: 1us, think-ns: 500ns, think-jitter-ns: 1us}
      background:
        host-threads: 1
      variants:
        ticket:
          vms[0].locks.spinlock: ticket
      replications: 2
      sweep:
        duration: [4ms, 5ms]
      """;

  static Experiment built() {
    return Experiment.builder("front-doors")
        .arch("x86_64-kvm")
        .seed(7)
        .warmupNs(1_000_000)
        .durationNs(4_000_000)
        .host(2, "cfs")
        .vm("vm0", vm -> vm.vcpus(4).pinning(0, 1, 0, 1).spinlock("pv-qspinlock").vcpuIsPreempted(true)
            .workload("torture", "locktorture", Map.of("nwriters", "4", "hold-ns", "1us", "think-ns", "500ns",
                "think-jitter-ns", "1us")))
        .hostThreads(1)
        .variant("ticket", Map.of("vms[0].locks.spinlock", "ticket"))
        .replications(2)
        .sweep("duration", "4ms", "5ms")
        .build();
  }

  private final ExperimentRunner runner = new ExperimentRunner(
      ExperimentPlugins.discover(getClass().getClassLoader()));

  @Test
  void builderAndYaml_bindToEqualModels() {
    assertThat(ExperimentYaml.read("front-doors.yaml", YAML)).isEqualTo(built());
  }

  @Test
  void builderAndYaml_produceIdenticalResultJson() {
    var fromYaml = ResultJson.document("x", runner.runAll("x", ExperimentYaml.read("x", YAML)));
    var fromBuilder = ResultJson.document("x", runner.runAll("x", built()));

    assertThat(ResultJson.withoutWallClock(fromBuilder)).isEqualTo(ResultJson.withoutWallClock(fromYaml));
    // Both variants ran and the locks did work: the comparison is not between two empty results.
    assertThat(fromYaml.get("runs")).hasSize(2);
    assertThat(fromYaml.at("/runs/0/workloads/0/figures/acquisitions").asLong()).isPositive();
    assertThat(fromYaml.at("/runs/1/workloads/0/native/lock").asText()).isEqualTo("ticket");
  }

  @Test
  void model_roundTripsThroughYaml() {
    Experiment e = built();
    assertThat(ExperimentYaml.read("again", ExperimentYaml.write(e))).isEqualTo(e);
  }

  @Test
  void variant_appliesItsOverridesOnly() {
    Experiment v = ExperimentYaml.variant(built(), "ticket");
    assertThat(v.vms().get(0).locks().spinlock()).isEqualTo("ticket");
    assertThat(v.vms().get(0).locks().vcpuIsPreempted()).isTrue();
    assertThat(v.variants()).isEmpty();
    assertThat(v.seed()).isEqualTo(7);
  }

  @Test
  void sameSeed_sameFingerprint_otherSeed_otherFingerprint() {
    Experiment e = built();
    String a = runner.run(e, "base").fingerprint();
    String b = runner.run(e, "base").fingerprint();
    String c = runner.run(e.toBuilder().seed(8).build(), "base").fingerprint();
    assertThat(a).isEqualTo(b).isNotEqualTo(c);
  }
}

package org.lockvisor.experiment.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.experiment.runner.ExperimentRunner;

/** Validation reports every problem at once, each with its path, the bad value and the allowed ones. */
class ExperimentValidationTest {

  private final ExperimentRunner runner = new ExperimentRunner(
      ExperimentPlugins.discover(getClass().getClassLoader()));

  private List<Problem> problems(String yaml) {
    try {
      runner.validateTree("t.yaml", ExperimentYaml.parse("t.yaml", yaml));
      return List.of();
    } catch (InvalidExperimentException e) {
      return e.problems();
    }
  }

  @Test
  void manyProblems_allReportedWithPaths() {
    List<Problem> problems = problems("""
        arch: x86_64-kvn
        duration: 0
        host: {cpus: 2}
        vms:
          - name: vm0
            vcpus: 2
            pinning: [0, 5]
            locks: {spinlock: qspinlok, mutex: ticket}
            workloads:
              - {name: t, type: locktorture, options: {nwriters: -1, torture-type: mutex}}
        """);

    assertThat(problems).extracting(Problem::path).containsExactlyInAnyOrder(
        "duration", "vms[0].pinning[1]", "arch", "vms[0].locks.spinlock", "vms[0].locks.mutex",
        "vms[0].workloads[0].options.nwriters", "vms[0].workloads[0].options.torture-type");
    assertThat(problems).filteredOn(p -> p.path().equals("vms[0].locks.spinlock")).singleElement()
        .extracting(Problem::message).asString()
        .contains("[qspinlok]", "did you mean [qspinlock]?", "pv-qspinlock", "ticket");
    assertThat(problems).filteredOn(p -> p.path().equals("vms[0].workloads[0].options.torture-type"))
        .singleElement().extracting(Problem::message).asString()
        .contains("[mutex]", "spin_lock", "mutex_lock", "rwsem_lock");
  }

  @Test
  void builder_sameStructuralValidationAsYaml() {
    Experiment.Builder b = Experiment.builder("bad").host(2, "cfs")
        .vm("vm0", vm -> vm.vcpus(2).pinning(0, 9));
    assertThatThrownBy(b::build).isInstanceOf(InvalidExperimentException.class)
        .hasMessageContaining("vms[0].pinning[1]: CPU [9] does not exist");
  }

  @Test
  void builder_pluginProblemsFoundByTheSameValidator() {
    Experiment e = Experiment.builder("bad").host(2, "cfs")
        .vm("vm0", vm -> vm.vcpus(2).spinlock("mcs-typo").workload("t", "locktorture", Map.of("nwriters", "2")))
        .build();
    assertThatThrownBy(() -> runner.validate("builder", e)).isInstanceOf(InvalidExperimentException.class)
        .hasMessageContaining("vms[0].locks.spinlock: unknown spinlock algorithm [mcs-typo]");
  }

  @Test
  void defaultTopology_pinningCheckedAgainstTheProfile() {
    List<Problem> problems = problems("""
        vms:
          - {name: vm0, vcpus: 1, pinning: [100000]}
        """);
    assertThat(problems).singleElement().extracting(Problem::toString).asString()
        .startsWith("vms[0].pinning[0]: CPU [100000] does not exist; the default topology of [x86_64-kvm] has");
  }

  @Test
  void durationOptions_acceptUnits() {
    assertThat(problems("""
        duration: 1ms
        host: {cpus: 1}
        vms:
          - name: vm0
            workloads:
              - {name: t, type: locktorture, options: {hold-ns: 1.5us, think-ns: 2us, nwriters: 1}}
        """)).isEmpty();
    assertThat(Durations.parse("1.5us")).isEqualTo(1_500);
    assertThat(Durations.parse("1.5ns")).isEqualTo(-1);
    assertThat(Durations.format(2_000_000)).isEqualTo("2ms");
  }

  @Test
  void set_createsAndReplaces_rejectsOutOfRangeIndex() {
    var tree = (com.fasterxml.jackson.databind.node.ObjectNode) ExperimentYaml.parse("t", "vms: [{name: vm0}]\n");
    assertThat(ExperimentYaml.set(tree, "vms[0].locks.spinlock", "ticket")).isNull();
    assertThat(ExperimentYaml.set(tree, "vms[0].vcpus", "4")).isNull();
    assertThat(tree.at("/vms/0/locks/spinlock").asText()).isEqualTo("ticket");
    assertThat(tree.at("/vms/0/vcpus").isInt()).isTrue();
    assertThat(ExperimentYaml.set(tree, "vms[2].vcpus", "4")).extracting(Problem::message).asString()
        .contains("index [2] is out of range");
  }
}

package org.lockvisor.experiment.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.lockvisor.experiment.runner.ExperimentRunner;
import org.lockvisor.locking.spi.LockFactory.LockKind;

/**
 * The {@code locks: rwlock:} slot: a named rwlock plugin is validated like the other lock kinds
 * (unknown name with "did you mean", a plugin of another kind, bad options), and a kernel that
 * names none gets its architecture's 4.x family — qrwlock on x86_64 and arm64,
 * ppc-splpar-rwlock on ppc64 — while an s390 kernel, whose rwlock no plugin models, is refused
 * with one line when it creates an rwlock.
 */
class RwlockChoiceTest {
  private final ExperimentRunner runner = new ExperimentRunner(ExperimentPlugins.discover(getClass().getClassLoader()));

  private List<Problem> problems(String locks) {
    try {
      runner.validateTree("t.yaml", ExperimentYaml.parse("t.yaml", """
          host: {cpus: 2}
          vms:
            - name: vm0
              vcpus: 2
              locks: %s
          """.formatted(locks)));
      return List.of();
    } catch (InvalidExperimentException e) {
      return e.problems();
    }
  }

  @Test
  void rwlockSlot_unknownName_didYouMean() {
    assertThat(problems("{rwlock: qrwlok}")).singleElement().satisfies(p -> {
      assertThat(p.path()).isEqualTo("vms[0].locks.rwlock");
      assertThat(p.message()).contains("[qrwlok]", "did you mean [qrwlock]?", "ppc-splpar-rwlock");
    });
  }

  @Test
  void rwlockSlot_pluginOfAnotherKind_refused() {
    assertThat(problems("{rwlock: qspinlock}")).singleElement().extracting(Problem::message).asString()
        .contains("[qspinlock] is a spinlock algorithm, not a rwlock one");
  }

  @Test
  void rwlockSlot_badOption_refusedWithItsPath() {
    assertThat(problems("{rwlock: {type: ppc-splpar-rwlock, options: {shared-processor: maybe}}}")).singleElement()
        .extracting(Problem::path).isEqualTo("vms[0].locks.rwlock.options.shared-processor");
    assertThat(problems("{rwlock: {type: ppc-splpar-rwlock, options: {shared-processor: false}}}")).isEmpty();
  }

  @Test
  void rwlockSlot_absent_architecturesFamily() {
    LockChoices none = LockChoices.defaults();
    assertThat(none.rwlock()).isNull();
    assertThat(none.algorithm(LockKind.RWLOCK, "x86_64-kvm")).isEqualTo("qrwlock");
    assertThat(none.algorithm(LockKind.RWLOCK, "arm64-kvm")).isEqualTo("qrwlock");
    assertThat(none.algorithm(LockKind.RWLOCK, "ppc64-powervm")).isEqualTo("ppc-splpar-rwlock");
    assertThat(none.algorithm(LockKind.RWLOCK, "s390x-kvm")).isNull();
    assertThat(none.withRwlock("qrwlock").algorithm(LockKind.RWLOCK, "ppc64-powervm")).isEqualTo("qrwlock");
  }

  @Test
  void yaml_rwlockRoundTrips_absentStaysAbsent() {
    Experiment chosen = ExperimentYaml.read("t.yaml", """
        vms:
          - {name: vm0, vcpus: 2, locks: {rwlock: ppc-splpar-rwlock}}
        """);
    assertThat(chosen.vms().get(0).locks().rwlock()).isEqualTo("ppc-splpar-rwlock");
    Experiment absent = ExperimentYaml.read("t.yaml", "vms:\n  - {name: vm0, vcpus: 2}\n");
    assertThat(absent.vms().get(0).locks().rwlock()).isNull();
  }

  @Test
  void s390Kernel_createsAnRwlock_refusedWithOneLine() {
    Experiment e = ExperimentYaml.read("t.yaml", """
        arch: s390x-kvm
        host: {cpus: 2}
        duration: 1ms
        warmup: 0ns
        vms:
          - name: vm0
            vcpus: 2
            workloads:
              - {name: m, type: sched-messaging, options: {groups: 1, loops: 1}}
        """);
    assertThatThrownBy(() -> runner.run(e, null)).hasMessageContaining("no rwlock plugin models the rwlock of [s390x-kvm]")
        .hasMessageContaining("rwlock: qrwlock")
        .hasMessageNotContaining("\n");
  }
}

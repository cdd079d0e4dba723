package org.lockvisor.experiment.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.lockvisor.experiment.model.Experiment;
import org.lockvisor.experiment.model.ExperimentPlugins;
import org.lockvisor.experiment.model.ExperimentYaml;
import org.lockvisor.experiment.model.LockChoices;
import org.lockvisor.locking.spi.LockFactory.LockKind;

/**
 * Lock options set in an experiment file ({@code locks: {mutex: {type: mutex-owner, options:
 * {...}}}}) reach the kernel's locks through the runner, locktorture's lock included: turning
 * optimistic spinning off changes the run, giving the default explicitly changes nothing, and the
 * long form survives a write and re-read; locktorture's {@code lock-options} reach its lock when it
 * names another plugin than the kernel's.
 */
class LockOptionsRunTest {
  private static final ExperimentPlugins PLUGINS = ExperimentPlugins.discover(
      LockOptionsRunTest.class.getClassLoader());

  private static String yaml(String mutex) {
    return """
        name: mutex-options
        seed: 7
        warmup: 200us
        duration: 4ms
        host: {cpus: 2}
        vms:
          - name: vm0
            vcpus: 4
            pinning: [0, 1, 0, 1]
            locks: {mutex: %s}
            workloads:
              - {name: t, type: locktorture, options: {torture-type: mutex_lock, nwriters: 6, hold-ns: 20us}}
        """.formatted(mutex);
  }

  private static ExperimentResult run(String mutex) {
    Experiment e = ExperimentYaml.read("test", yaml(mutex));
    ExperimentRunner runner = new ExperimentRunner(PLUGINS);
    runner.validate("test", e);
    List<ExperimentResult> results = runner.runAll("test", e);
    return results.get(0);
  }

  @Test
  void yamlLockOptions_optimisticSpinOff_changesTheRun() {
    ExperimentResult shorthand = run("mutex-owner");
    ExperimentResult explicitDefault = run("{type: mutex-owner, options: {optimistic-spin: true}}");
    ExperimentResult off = run("{type: mutex-owner, options: {optimistic-spin: false}}");

    assertThat(explicitDefault.fingerprint()).as("the default given explicitly").isEqualTo(shorthand.fingerprint());
    assertThat(off.fingerprint()).as("optimistic-spin: false reaches the lock").isNotEqualTo(shorthand.fingerprint());
    assertThat(off.workload("vm0", "t").figures().get("fail").longValue()).isZero();
  }

  @Test
  void yamlLockOptions_longForm_roundTripsThroughWrite() {
    Experiment e = ExperimentYaml.read("test", yaml("{type: mutex-count, options: {wake: inside-wait-lock}}"));
    LockChoices locks = e.vms().get(0).locks();
    assertThat(locks.mutex()).isEqualTo("mutex-count");
    assertThat(locks.options(LockKind.MUTEX)).containsEntry("wake", "inside-wait-lock");
    Experiment again = ExperimentYaml.read("again", ExperimentYaml.write(e));
    assertThat(again.vms().get(0).locks()).isEqualTo(locks);
  }

  private static ExperimentResult torture(String lockOptions) {
    String text = """
        name: torture-lock-options
        seed: 7
        warmup: 200us
        duration: 4ms
        host: {cpus: 2}
        vms:
          - name: vm0
            vcpus: 4
            pinning: [0, 1, 0, 1]
            workloads:
              - {name: t, type: locktorture, options: {torture-type: mutex_lock, lock: mutex-count, nwriters: 6,
                 hold-ns: 20us, lock-options: "%s"}}
        """.formatted(lockOptions);
    Experiment e = ExperimentYaml.read("test", text);
    ExperimentRunner runner = new ExperimentRunner(PLUGINS);
    runner.validate("test", e);
    return runner.runAll("test", e).get(0);
  }

  @Test
  void locktortureLockOptions_otherPluginThanTheKernels_reachItsLock() {
    ExperimentResult none = torture("");
    ExperimentResult explicitDefault = torture("optimistic-spin=true");
    ExperimentResult off = torture("optimistic-spin=false, wake=inside-wait-lock");

    assertThat(explicitDefault.fingerprint()).isEqualTo(none.fingerprint());
    assertThat(off.fingerprint()).isNotEqualTo(none.fingerprint());
    assertThat(off.workload("vm0", "t").figures().get("fail").longValue()).isZero();
  }
}

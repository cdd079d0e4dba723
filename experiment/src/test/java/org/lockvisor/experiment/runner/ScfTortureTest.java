package org.lockvisor.experiment.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.experiment.model.Experiment;
import org.lockvisor.experiment.model.ExperimentPlugins;
import org.lockvisor.experiment.model.ExperimentYaml;

/**
 * scftorture (kernel/scftorture.c over kernel/smp.c): every queued call-single-data is run by its
 * target and unlocked, so a waiting caller's calls are all handled; a caller spinning in
 * csd_lock_wait waits for target vCPUs that wait for a host CPU, and its PAUSE loop traps to
 * kvm_vcpu_on_spin. A target woken from its halt by the IPI is not preempted: the 3.10 filter
 * skips it, the ready filter (d73eb57b80b9, which was made for smp_call_function_many) yields to it.
 */
class ScfTortureTest {
  private static final ExperimentPlugins PLUGINS = ExperimentPlugins.discover(ScfTortureTest.class.getClassLoader());

  private static ExperimentResult run(String text) {
    Experiment e = ExperimentYaml.read("test", text);
    ExperimentRunner runner = new ExperimentRunner(PLUGINS);
    runner.validate("test", e);
    return runner.runAll("test", e).get(0);
  }

  private static String oneVm(int cpus, String pinning) {
    return """
        name: scf
        arch: x86_64-kvm
        seed: 7
        warmup: 1ms
        duration: 10ms
        host: {cpus: %d}
        vms:
          - name: vm0
            vcpus: 4
            pinning: %s
            workloads:
              - {name: scf, type: scftorture, options: {primitive: all}}
        """.formatted(cpus, pinning);
  }

  private static Map<String, Number> figures(ExperimentResult r) {
    return r.workload("vm0", "scf").figures();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Long> yields(ExperimentResult r) {
    List<Object> guests = (List<Object>) r.scheduling().get("guests");
    return (Map<String, Long>) ((Map<String, Object>) guests.get(0)).get("yields");
  }

  @Test
  void waitingCalls_1x_everyTargetRunsEveryCall() {
    Map<String, Number> f = figures(run(oneVm(4, "[0, 1, 2, 3]")));

    long calls = f.get("calls").longValue();
    assertThat(calls).isPositive();
    assertThat(f.get("idle_tasks").intValue()).isZero();
    // smp_call_function to the 3 other CPUs: calls in flight at the window's edges aside
    assertThat(f.get("scf_invoked_count").longValue()).isBetween(3 * calls - 12, 3 * calls + 12);
  }

  @Test
  void waitingCalls_overcommitted_waitForPreemptedTargetsAndTrap() {
    ExperimentResult oneX = run(oneVm(4, "[0, 1, 2, 3]"));
    ExperimentResult twoX = run(oneVm(2, "[0, 1, 0, 1]"));

    // (directed yields to the preempted targets keep it to a few times the 1x wait)
    assertThat(figures(twoX).get("csd_wait_mean_ns").longValue())
        .isGreaterThan(2 * figures(oneX).get("csd_wait_mean_ns").longValue());
    assertThat(yields(twoX).get("ple_exits")).isPositive();
  }

  private static String withHog(String directedYield) {
    return """
        name: scf-ready
        arch: x86_64-kvm
        seed: 9
        warmup: 5ms
        duration: 30ms
        host: {cpus: 4}
        hypervisor: {directed-yield: %s}
        vms:
          - name: vm0
            vcpus: 4
            pinning: [0, 1, 2, 3]
            workloads:
              - {name: scf, type: scftorture, options: {primitive: all, nthreads: 1}}
          - name: vm1
            vcpus: 4
            pinning: [0, 1, 2, 3]
            workloads:
              - {name: hog, type: locktorture, options: {torture-type: spin_lock, nwriters: 4, hold-ns: 1us,
                 think-ns: 200us}}
        """.formatted(directedYield);
  }

  @Test
  void readyFilter_idleTargetsWokenByTheIpi_becomeYieldTargets() {
    // one caller, three idle vCPUs that halt between calls, their CPUs shared with a busy VM
    Map<String, Long> v310 = yields(run(withHog("v3.10")));
    Map<String, Long> ready = yields(run(withHog("ready")));

    assertThat(v310.get("ple_exits")).isPositive();
    assertThat(v310.get("successes")).isZero();
    assertThat(v310.get("skip_not_preempted")).isPositive();
    assertThat(ready.get("successes")).isPositive();
  }
}

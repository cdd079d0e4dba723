package org.lockvisor.experiment.runner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.lockvisor.experiment.model.Experiment;
import org.lockvisor.experiment.model.ExperimentPlugins;
import org.lockvisor.experiment.model.ExperimentYaml;
import org.lockvisor.experiment.model.InvalidExperimentException;
import org.lockvisor.machine.Machine;

/**
 * What a run's result holds of its guests beside the workload figures: the guest-sampled profile
 * ({@link SymbolProfile}, {@code [H]} lines only on a partition hypervisor), the lock counters by
 * algorithm ({@link LockTotals}), and the guest sampler of {@code sample-interval}, an instrument
 * that leaves the machine's events alone; and {@code threads-per-core}, which shapes the guest's
 * topology where the hypervisor presents SMT and is refused where it cannot.
 */
class GuestObservationsTest {

  static final String YAML = """
      name: observed
      arch: ppc64-powervm
      seed: 5
      warmup: 0
      duration: until-done
      max-duration: 10s
      done-check-interval: 5ms
      host:
        cpus: 2
        scheduler: powervm-dispatch
        scheduler-options: {entitlement: 2}
      vms:
        - name: lpar
          vcpus: 4
          locks: {spinlock: ppc-splpar, mutex: mutex-count, rwsem: rwsem-xadd}
          workloads:
            - name: sm
              type: sched-messaging
              options: {groups: 2, loops: 20}
      """;

  private final ExperimentRunner runner = new ExperimentRunner(
      ExperimentPlugins.discover(getClass().getClassLoader()));

  /** The same machine on x86_64-kvm: the host's CFS, pv-qspinlock. */
  static final String KVM_YAML = YAML.replace("arch: ppc64-powervm", "arch: x86_64-kvm")
      .replace("scheduler: powervm-dispatch\n  scheduler-options: {entitlement: 2}", "scheduler: cfs")
      .replace("spinlock: ppc-splpar", "spinlock: pv-qspinlock");

  private Experiment experiment(String... sets) {
    return experimentOf(YAML, sets);
  }

  private Experiment experimentOf(String yaml, String... sets) {
    ObjectNode tree = (ObjectNode) ExperimentYaml.parse("t.yaml", yaml.getBytes(StandardCharsets.UTF_8));
    for (int i = 0; i < sets.length; i += 2) {
      assertThat(ExperimentYaml.set(tree, sets[i], sets[i + 1])).isNull();
    }
    return runner.validateTree("t.yaml", tree);
  }

  @Test
  void sampler_leavesTheMachinesEventsAndFiguresAlone_countsSpinnersAndPreemptedVps() {
    ExperimentResult plain = runner.run(experiment(), "base");
    ExperimentResult sampled = runner.run(experiment("sample-interval", "100us"), "base");

    assertThat(plain.samples()).isEmpty();
    assertThat(sampled.events()).isEqualTo(plain.events());
    assertThat(sampled.workloads()).isEqualTo(plain.workloads());
    assertThat(sampled.profiles()).isEqualTo(plain.profiles());
    assertThat(sampled.fingerprint()).as("the sampler's events are in the hash").isNotEqualTo(plain.fingerprint());

    GuestSamples g = sampled.samples("lpar");
    long end = sampled.warmupNs() + sampled.simulatedNs();
    assertThat(g.periods()).isEqualTo(end / 100_000);
    // 4 VPs on 2 processors: some VP waits for a processor in some period, never more than all 4
    assertThat(g.preemptedVcpuSum()).isPositive().isLessThanOrEqualTo(4 * g.periods());
    long spinning = g.spinners().values().stream().mapToLong(GuestSamples.Spinners::samples).sum();
    assertThat(spinning).isLessThanOrEqualTo(4 * g.periods());
    g.spinners().values().forEach(s -> assertThat(s.runnableMax() * s.samples()).isGreaterThanOrEqualTo(s.runnableSum()));
  }

  @Test
  void profileAndLockTotals_partitionHypervisorSampledAsH_sleepingLocksCounted() {
    ExperimentResult r = runner.run(experiment(), "base");
    SymbolProfile p = r.profile("lpar");
    assertThat(p.totalNs()).isPositive();
    assertThat(p.lines().stream().mapToDouble(SymbolProfile.Line::percent).sum()).isCloseTo(100, org.assertj.core.data.Offset.offset(1e-6));
    assertThat(p.hypervisorPercent()).as("PowerVM hcalls show as [H]").isPositive();
    assertThat(p.lines()).filteredOn(l -> l.marker() == 'H').allSatisfy(l -> assertThat(l.command()).isEqualTo("sm"));
    assertThat(p.percent("pipe_read")).isPositive();

    assertThat(r.lockTotals()).containsKeys("mutex-count", "rwsem-xadd");
    LockTotals all = LockTotals.all(r.lockTotals());
    assertThat(all.acquisitions()).isEqualTo(r.lockTotals().values().stream().mapToLong(LockTotals::acquisitions).sum())
        .isPositive();
    assertThat(all.locks()).isEqualTo(r.lockTotals().values().stream().mapToLong(LockTotals::locks).sum());
  }

  @Test
  void kvmGuest_noHypervisorLines() {
    assertThat(KVM_YAML).doesNotContain("powervm");
    ExperimentResult r = runner.run(experimentOf(KVM_YAML), "base");
    assertThat(r.profile("lpar").hypervisorPercent()).isZero();
  }

  @Test
  void threadsPerCore_powervm_guestCpusPairedAsSiblings() {
    Experiment e = experiment("host.scheduler-options.smt", "2", "host.cpus", "4",
        "vms[0].kernel.threads-per-core", "2");
    Machine[] machine = new Machine[1];
    assertThat(runner.run(experiment(), "base").events()).isPositive();
    runner.run(e, "base", new RunObserver() {
      @Override
      public void measurementStarted(Machine m) {
        machine[0] = m;
      }
    });
    var guest = machine[0].vms().get(0).guest();
    assertThat(guest.topology().threadsPerCore()).isEqualTo(2);
    assertThat(guest.topology().llcCpus()).as("4.8 pseries: the LLC is a VP's threads").isEqualTo(2);
  }

  @Test
  void threadsPerCore_kvmOrNotDividingVcpus_refusedAtItsPath() {
    assertThatThrownBy(() -> experimentOf(KVM_YAML, "vms[0].kernel.threads-per-core", "2"))
        .isInstanceOf(InvalidExperimentException.class)
        .hasMessageContaining("vms[0].kernel.threads-per-core").hasMessageContaining("cannot take effect");
    assertThatThrownBy(() -> experiment("vms[0].kernel.threads-per-core", "8"))
        .isInstanceOf(InvalidExperimentException.class).hasMessageContaining("does not divide");
    assertThatThrownBy(() -> experiment("sample-interval", "-1"))
        .isInstanceOf(InvalidExperimentException.class).hasMessageContaining("sample-interval");
  }
}

package org.lockvisor.reproductions.vcpupreempted;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.InputStream;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.lockvisor.experiment.model.Experiment;
import org.lockvisor.experiment.model.ExperimentPlugins;
import org.lockvisor.experiment.model.ExperimentYaml;
import org.lockvisor.experiment.report.PerfReport;
import org.lockvisor.experiment.runner.ExperimentResult;
import org.lockvisor.experiment.runner.ExperimentRunner;
import org.lockvisor.experiment.runner.LockTotals;
import org.lockvisor.workloads.schedmessaging.SchedMessagingConfig;

/** Temporary: the shipped files against SchedMessagingRun at the quick scale. */
class TmpRowsEquivalenceTest {
  private static final ExperimentRunner RUNNER =
      new ExperimentRunner(ExperimentPlugins.discover(TmpRowsEquivalenceTest.class.getClassLoader()));

  @ParameterizedTest
  @CsvSource({"vcpu-preempted-powervm.yaml,ppc64-powervm,4,6,lpar,false", "vcpu-preempted-powervm.yaml,ppc64-powervm,4,6,lpar,true",
      "vcpu-preempted-kvm.yaml,x86_64-kvm,4,4,vm0,false", "vcpu-preempted-kvm.yaml,x86_64-kvm,4,4,vm0,true"})
  void same(String file, String profile, int cpus, int groups, String vm, boolean patched) throws Exception {
    byte[] bytes;
    try (InputStream in = getClass().getResourceAsStream("/org/lockvisor/reproductions/experiments/" + file)) {
      bytes = in.readAllBytes();
    }
    ObjectNode tree = (ObjectNode) ExperimentYaml.parse(file, bytes);
    assertThat(ExperimentYaml.set(tree, "host.cpus", cpus + "")).isNull();
    if (profile.startsWith("ppc")) {
      assertThat(ExperimentYaml.set(tree, "host.scheduler-options.entitlement", cpus + "")).isNull();
    }
    assertThat(ExperimentYaml.set(tree, "vms[0].vcpus", 2 * cpus + "")).isNull();
    assertThat(ExperimentYaml.set(tree, "vms[0].workloads[0].options.groups", groups + "")).isNull();
    assertThat(ExperimentYaml.set(tree, "max-duration", "30s")).isNull();
    Experiment e = RUNNER.validateTree(file, tree);
    ExperimentResult r = RUNNER.run(patched ? ExperimentYaml.variant(e, "patched") : e, patched ? "patched" : "base");
    SchedMessagingRun.Outcome own = SchedMessagingRun.run(new SchedMessagingRun.Platform(profile, cpus, 2 * cpus),
        patched, SchedMessagingConfig.perfDefaults().withGroups(groups), 1, 30_000_000_000L);
    assertThat(r.events()).isEqualTo(own.events());
    assertThat(r.warmupNs() + r.simulatedNs()).isEqualTo(own.simulatedNs());
    assertThat(PerfReport.of(r.profile(vm)).format(0)).isEqualTo(own.report().format(0));
    assertThat(r.workload(vm, "sched-messaging").figures().get("total_time_s").doubleValue())
        .isEqualTo(own.workload().totalTimeNs() / 1e9);
    assertThat(r.workload(vm, "sched-messaging").figures()).isEqualTo(own.workload().figures());
    LockTotals all = LockTotals.all(r.lockTotals());
    var s = own.lockStats();
    assertThat(all.sleeps()).isEqualTo(s.get("sleeps"));
    assertThat(all.spinBailouts()).isEqualTo(s.get("spin_bailouts"));
    assertThat(all.ownerSpins()).isEqualTo(s.get("owner_spins"));
    assertThat(all.ownerSpinNs()).isEqualTo(s.get("owner_spin_ns"));
    assertThat(all.wakeupsLeftToSpinner()).isEqualTo(s.get("wakeups_left_to_spinner"));
    assertThat(all.contentions()).isEqualTo(s.get("contentions"));
    assertThat(r.lockTotals().get("rwsem-xadd").holdTotalNs()).isEqualTo(s.get("rwsem_hold_ns"));
    var g = r.samples(vm);
    var sp = g.spinners(VcpuPreemptedReproduction.SPIN);
    assertThat(sp.samples()).isEqualTo(s.get("spinner_samples"));
    assertThat(sp.runnableSum()).isEqualTo(s.get("spinner_runnable_sum"));
    assertThat(sp.runnableMax()).isEqualTo(s.get("spinner_runnable_max"));
    assertThat(g.spinners("osq_lock").samples()).isEqualTo(s.get("spinner_osq_member_samples"));
    assertThat(g.preemptedVcpuSum()).isEqualTo(s.get("preempted_vps_sum"));
    assertThat(g.periods()).isEqualTo(s.get("sampler_periods"));
    @SuppressWarnings("unchecked")
    var guests = (List<java.util.Map<String, Object>>) r.scheduling().get("guests");
    assertThat(Math.round(((Number) guests.get(0).get("runqueue_length_mean")).doubleValue() * 1000))
        .isEqualTo(s.get("guest_runqueue_mean_milli"));
    if (profile.startsWith("ppc")) {
      @SuppressWarnings("unchecked")
      var hc = (java.util.Map<String, Long>) guests.get(0).get("hcalls");
      hc.forEach((k, v) -> assertThat(v).as(k).isEqualTo(s.get("hcall." + k)));
    }
  }
}

package org.lockvisor.experiment.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.experiment.model.Experiment;
import org.lockvisor.experiment.model.ExperimentPlugins;
import org.lockvisor.experiment.model.ExperimentYaml;

/**
 * The steal-time {@code preempted} flag that a guest's {@code vcpu_is_preempted} reads is written
 * only by {@code kvm_arch_vcpu_put} (arch/x86/kvm/x86.c, 4.10+: {@code kvm_steal_time_set_preempted},
 * reached from {@code kvm_sched_out} when the vCPU thread is scheduled out, and until the
 * {@code if (vcpu->preempted)} guard of later kernels also from the put of an exit to userspace or
 * a halt that sleeps); it is cleared by {@code record_steal_time} at the next entry. A host
 * interrupt or softirq on the vCPU's CPU is a VM exit handled in the kernel without a put: the
 * guest stalls, but nothing tells it so. On a 1× guest the host's background activity therefore
 * flags owners preempted only for the few kworker wakeups that switch a vCPU thread out, and a
 * mutex workload's spin/sleep split and its throughput barely move when the background is off.
 */
class PreemptedFlagTest {
  private static final ExperimentPlugins PLUGINS = ExperimentPlugins.discover(
      PreemptedFlagTest.class.getClassLoader());

  private static ExperimentResult run(boolean background) {
    String text = """
        name: preempted-flag
        arch: x86_64-kvm
        seed: 9
        warmup: 1ms
        duration: 30ms
        host: {cpus: 4}
        %s
        vms:
          - name: vm0
            vcpus: 4
            pinning: [0, 1, 2, 3]
            locks: {vcpu-is-preempted: true}
            workloads:
              - {name: hb, type: sched-messaging, options: {groups: 2, fds: 4, loops: 1000000}}
        """.formatted(background ? "" : "hypervisor: {host-softirq-rate: 0, host-kworker-rate: 0}");
    Experiment e = ExperimentYaml.read("test", text);
    ExperimentRunner runner = new ExperimentRunner(PLUGINS);
    runner.validate("test", e);
    return runner.runAll("test", e).get(0);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Long> yields(ExperimentResult r) {
    List<Object> guests = (List<Object>) r.scheduling().get("guests");
    return (Map<String, Long>) ((Map<String, Object>) guests.get(0)).get("yields");
  }

  @SuppressWarnings("unchecked")
  private static long host(ExperimentResult r, String key) {
    return ((Number) ((Map<String, Object>) r.scheduling().get("host")).get(key)).longValue();
  }

  @Test
  void preemptedFlag_1xGuest_trueOnlyWhileScheduledOut_withOrWithoutHostBackground() {
    ExperimentResult on = run(true);
    ExperimentResult off = run(false);
    Map<String, Long> yOn = yields(on);
    Map<String, Long> yOff = yields(off);
    System.out.printf("preempted flag: on %s, off %s; kworker wakeups %d, softirqs %d%n", yOn, yOff,
        host(on, "background_kworker_wakeups"), host(on, "background_softirqs"));

    assertThat(host(on, "background_softirqs")).as("softirqs ran on the guest's CPUs").isPositive();
    assertThat(yOn.get("preempted_flag_false")).isPositive();
    assertThat(yOn.get("preempted_flag_true_while_loaded")).isZero();
    assertThat(yOff.get("preempted_flag_true_while_loaded")).isZero();
    // 1x and no background: nothing ever switches a vCPU thread out while it runs a task
    assertThat(yOff.get("preempted_flag_true")).isZero();
    // with it, only a kworker wakeup that preempts a vCPU thread can set the flag: a small share
    // of the reads (softirqs, over ten times as many, never do)
    long reads = yOn.get("preempted_flag_true") + yOn.get("preempted_flag_false");
    assertThat(yOn.get("preempted_flag_true")).isLessThan(reads / 100);
  }

  @Test
  void mutexWorkload_1xGuest_hostBackgroundOnOrOff_sameSpinSleepSplitAndThroughput() {
    ExperimentResult on = run(true);
    ExperimentResult off = run(false);
    LockTotals mOn = on.lockTotals().get("mutex-owner");
    LockTotals mOff = off.lockTotals().get("mutex-owner");
    double sleepShareOn = (double) mOn.sleeps() / mOn.contentions();
    double sleepShareOff = (double) mOff.sleeps() / mOff.contentions();
    double msgOn = on.workload("vm0", "hb").figures().get("messages_written").doubleValue();
    double msgOff = off.workload("vm0", "hb").figures().get("messages_written").doubleValue();
    System.out.printf("mutex: on %s%n       off %s%nmessages on %.0f off %.0f%n", mOn, mOff, msgOn, msgOff);

    assertThat(Math.abs(sleepShareOn - sleepShareOff)).as("sleeps per contention %s vs %s", sleepShareOn,
        sleepShareOff).isLessThan(0.05);
    assertThat(Math.abs(msgOn - msgOff) / msgOff).as("throughput").isLessThan(0.08);
  }
}

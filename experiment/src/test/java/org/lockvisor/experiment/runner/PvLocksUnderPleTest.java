package org.lockvisor.experiment.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.arch.catalog.ArchProfiles;
import org.lockvisor.arch.spi.ArchProfile;
import org.lockvisor.arch.spi.CostKey;
import org.lockvisor.experiment.model.Experiment;
import org.lockvisor.experiment.model.ExperimentPlugins;
import org.lockvisor.experiment.model.ExperimentYaml;

/**
 * Paravirtual spinlocks on an overcommitted x86 KVM guest with pause-loop exiting on, and the
 * 3.8+ {@code kvm_vcpu_on_spin} candidate filter.
 *
 * <p>(1) A waiter halts after SPIN_THRESHOLD (1 << 15) iterations of its own loop
 * (arch/x86/include/asm/spinlock.h 3.12 {@code arch_spin_lock}; kernel/locking/qspinlock_paravirt.h
 * 4.2+ {@code pv_wait_node}, {@code pv_wait_head_or_lock}); the count survives PLE exits and
 * directed yields. Each halt therefore needs the threshold's worth of spinning (loops × the
 * profile's PAUSE latency) since the wait began or the last halt, so the spin time the guest
 * profile measures bounds the halts from above; holds longer than the threshold make waiters
 * halt, and a halted waiter gives its CPU to the holder's vCPU, so pv-ticket beats ticket at 2×
 * and costs only the kick round trip at 1×.
 *
 * <p>(2) virt/kvm/kvm_main.c 3.8/3.10 {@code kvm_vcpu_on_spin}: {@code in_spin_loop} is set for
 * the handler's whole duration, so concurrent handlers see each other and skip a candidate inside
 * its own handler every other look ({@code dy_eligible}); 3.2 has no such filter.
 *
 * <p>(5) arch/x86/kvm/x86.c after 266e85a5ec91: {@code KVM_HC_KICK_CPU} calls {@code
 * kvm_sched_yield} toward the kicked vCPU, which yields only to a {@code ready} one; a waiter
 * halted in {@code pv_wait} and woken by the kick is ready until it runs.
 */
class PvLocksUnderPleTest {
  private static final ExperimentPlugins PLUGINS = ExperimentPlugins.discover(
      PvLocksUnderPleTest.class.getClassLoader());
  private static final int WRITERS = 4;

  private static String yaml(String lock, String pinning, int cpus, String hold, String hypervisor) {
    return """
        name: pv-under-ple
        arch: x86_64-kvm
        seed: 7
        warmup: 1ms
        duration: 20ms
        host: {cpus: %d}
        %s
        vms:
          - name: vm0
            vcpus: 4
            pinning: %s
            locks: {spinlock: %s}
            workloads:
              - {name: t, type: locktorture, options: {torture-type: spin_lock, nwriters: %d, hold-ns: %s}}
        """.formatted(cpus, hypervisor, pinning, lock, WRITERS, hold);
  }

  private static ExperimentResult run(String text) {
    Experiment e = ExperimentYaml.read("test", text);
    ExperimentRunner runner = new ExperimentRunner(PLUGINS);
    runner.validate("test", e);
    return runner.runAll("test", e).get(0);
  }

  private static ExperimentResult overcommitted(String lock) {
    return run(yaml(lock, "[0, 1, 0, 1]", 2, "300us", ""));
  }

  private static double acquisitionsPerSecond(ExperimentResult r) {
    return r.workload("vm0", "t").figures().get("acquisitions_per_s").doubleValue();
  }

  private static long spinNs(ExperimentResult r, String symbol) {
    return r.profile("vm0").lines().stream().filter(l -> l.symbol().equals(symbol))
        .mapToLong(SymbolProfile.Line::ns).sum();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Long> yields(ExperimentResult r) {
    List<Object> guests = (List<Object>) r.scheduling().get("guests");
    return (Map<String, Long>) ((Map<String, Object>) guests.get(0)).get("yields");
  }

  @Test
  void pvLocks_overcommittedWithPle_haltAtRatesTheThresholdAndSpinTimeAllow() {
    // SPIN_THRESHOLD iterations of a loop whose period is one cpu_relax() (PAUSE)
    ArchProfile x86 = ArchProfiles.byName("x86_64-kvm");
    assertThat(x86.costs().value(CostKey.SPIN_THRESHOLD_LOOPS)).isEqualTo(1 << 15);
    long threshold = (1L << 15) * x86.ns(CostKey.PAUSE);

    for (String[] lock : new String[][] {{"pv-ticket", "_raw_spin_lock"},
        {"pv-qspinlock", "__pv_queued_spin_lock_slowpath"}}) {
      ExperimentResult r = overcommitted(lock[0]);
      LockClassStats s = r.lockStat().classes().get(0);
      long spun = spinNs(r, lock[1]);
      assertThat(yields(r).get("ple_exits")).as(lock[0] + " PLE exits").isPositive();
      assertThat(s.halts()).as(lock[0] + " halts: 300us holds outlast the threshold").isPositive();
      assertThat(s.halts()).as(lock[0] + " halts <= spin time / threshold").isLessThanOrEqualTo(spun / threshold);
      assertThat(s.kicks()).as(lock[0] + " kicks: one per halted waiter woken for its turn").isPositive()
          .isLessThanOrEqualTo(s.halts());
    }
  }

  @Test
  void pvTicket_overcommittedWithPle_fasterThanTicket_andWithinAFewPercentAt1x() {
    assertThat(acquisitionsPerSecond(overcommitted("pv-ticket")))
        .isGreaterThan(1.2 * acquisitionsPerSecond(overcommitted("ticket")));

    double pv = acquisitionsPerSecond(run(yaml("pv-ticket", "[0, 1, 2, 3]", 4, "300us", "")));
    double plain = acquisitionsPerSecond(run(yaml("ticket", "[0, 1, 2, 3]", 4, "300us", "")));
    assertThat(Math.abs(pv - plain) / plain).as("1x: pv-ticket %s vs ticket %s", pv, plain).isLessThan(0.04);
  }

  @Test
  void kickYield_overcommittedPvQspinlock_yieldsToKickedWaiters_onlyWhenOn() {
    Map<String, Long> on = yields(run(yaml("pv-qspinlock", "[0, 1, 0, 1]", 2, "300us",
        "hypervisor: {directed-yield: ready, pv-kick-yield: true}")));
    Map<String, Long> off = yields(run(yaml("pv-qspinlock", "[0, 1, 0, 1]", 2, "300us",
        "hypervisor: {directed-yield: ready}")));

    assertThat(on.get("pv_kicks")).isPositive();
    assertThat(on.get("kick_yield_successes")).isPositive()
        .isLessThanOrEqualTo(on.get("kick_yield_attempts"));
    assertThat(on.get("kick_yield_attempts") + on.get("kick_yield_not_ready")).isEqualTo(on.get("pv_kicks"));
    assertThat(off.get("kick_yield_attempts") + off.get("kick_yield_not_ready")).isZero();
  }

  @Test
  void candidateFilter_v38_skipsHandlersThatOverlap_v32DoesNot() {
    Map<String, Long> v38 = yields(run(yaml("ticket", "[0, 1, 0, 1]", 2, "2us", "hypervisor: {directed-yield: v3.8}")));
    Map<String, Long> v32 = yields(run(yaml("ticket", "[0, 1, 0, 1]", 2, "2us", "hypervisor: {directed-yield: v3.2}")));

    assertThat(v38.get("handler_overlaps")).isPositive();
    assertThat(v38.get("skip_ineligible")).isPositive();
    assertThat(v38.get("skip_self")).isPositive();
    assertThat(v32.get("handler_overlaps")).isPositive();
    assertThat(v32.get("skip_ineligible")).isZero();
  }
}

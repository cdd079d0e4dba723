package org.lockvisor.scheduler.builtin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.lockvisor.scheduler.builtin.SchedTestSupport.MS;
import static org.lockvisor.scheduler.builtin.SchedTestSupport.US;
import static org.lockvisor.scheduler.builtin.SchedTestSupport.at;
import static org.lockvisor.scheduler.builtin.SchedTestSupport.cpuBound;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Task;
import org.lockvisor.machine.Vm;
import org.lockvisor.machine.config.HypervisorConfig;
import org.lockvisor.machine.config.KernelConfig;
import org.lockvisor.scheduler.builtin.SchedTestSupport.RunRecorder;

/**
 * PowerVM dispatch: each virtual processor gets its entitled share of every dispatch window;
 * capacity a VP cedes (or leaves unused) goes to other runnable VPs of uncapped LPARs, while
 * capped VPs wait for the next window.
 */
class PowervmDispatchSchedulerTest {
  private static final long WINDOW = 10 * MS;

  private final Simulation sim = new Simulation(1);
  private final Machine machine = new Machine(sim);
  private final PowervmDispatchSchedulerFactory factory = new PowervmDispatchSchedulerFactory();

  private record Lpar(PowervmDispatchScheduler phyp, Kernel host, Task vp0, Task vp1, RunRecorder rec) {}

  /** One physical processor; one LPAR with 2 VPs on it; guest CPU-bound tasks on {@code busyVcpus}. */
  private Lpar lpar(Map<String, String> options, int... busyVcpus) {
    PowervmDispatchScheduler phyp = (PowervmDispatchScheduler) SchedulerContexts.create(factory, options);
    Kernel host = machine.createHost("phyp", 1, KernelConfig.zeroCost(MS), phyp);
    Vm vm = machine.createVm("lpar", 2, KernelConfig.zeroCost(10 * MS), CfsScheduler.withDefaults(),
        HypervisorConfig.zeroCost(), 0, 0);
    for (int v : busyVcpus) {
      vm.guest().spawn("burn" + v, cpuBound("burn" + v), v);
    }
    RunRecorder rec = new RunRecorder(machine, host.cpu(0));
    machine.setTrace(rec);
    return new Lpar(phyp, host, vm.vcpus().get(0), vm.vcpus().get(1), rec);
  }

  @Test
  void twoBusyVps_entitlementOneUnitOnOneProcessor_eachGetsHalfOfEveryWindow() {
    Lpar l = lpar(Map.of("entitlement", "1.0"), 0, 1);
    sim.runUntil(200 * MS);

    assertThat(l.phyp().entitlementNs(l.vp0())).isEqualTo(5 * MS);
    for (long w = 0; w < 20; w++) {
      long from = w * WINDOW;
      assertThat(l.rec().onCpu(l.vp0(), from, from + WINDOW)).as("window %s", w).isEqualTo(5 * MS);
      assertThat(l.rec().onCpu(l.vp1(), from, from + WINDOW)).as("window %s", w).isEqualTo(5 * MS);
    }
    assertThat(l.phyp().exhaustions(l.host().cpu(0))).isGreaterThanOrEqualTo(20);
  }

  @Test
  void uncapped_oneVpCedes_otherVpUsesTheWholeProcessor() {
    Lpar l = lpar(Map.of("entitlement", "1.0"), 0);
    sim.runUntil(200 * MS);

    for (long w = 1; w < 20; w++) {
      long from = w * WINDOW;
      assertThat(l.rec().onCpu(l.vp0(), from, from + WINDOW)).as("window %s", w).isEqualTo(WINDOW);
    }
    // the idle VP ceded at once (H_CEDE = halt) and sleeps
    assertThat(l.vp1().state()).isNotEqualTo(org.lockvisor.machine.TaskState.RUNNING);
  }

  @Test
  void capped_oneVpCedes_otherVpStillGetsOnlyItsEntitlementAndTheProcessorIdles() {
    Lpar l = lpar(Map.of("entitlement", "1.0", "capped", "true"), 0);
    sim.runUntil(200 * MS);

    for (long w = 1; w < 20; w++) {
      long from = w * WINDOW;
      assertThat(l.rec().onCpu(l.vp0(), from, from + WINDOW)).as("window %s", w).isEqualTo(5 * MS);
      assertThat(l.rec().onCpu(l.vp0(), from, from + 5 * MS)).as("entitlement first").isEqualTo(5 * MS);
    }
  }

  @Test
  void uncapped_entitledVpWakes_preemptsVpRunningOnLeftoverCapacity() {
    // vp1's guest task sleeps; vp0 exhausts its 5 ms at 5 ms and goes on with leftover capacity;
    // at 7 ms vp1's guest task is woken: vp1 still has its entitlement and preempts vp0 at once
    PowervmDispatchScheduler phyp = (PowervmDispatchScheduler) SchedulerContexts.create(factory, Map.of("entitlement", "1.0"));
    Kernel host = machine.createHost("phyp", 1, KernelConfig.zeroCost(MS), phyp);
    Vm vm = machine.createVm("lpar", 2, KernelConfig.zeroCost(10 * MS), CfsScheduler.withDefaults(),
        HypervisorConfig.zeroCost(), 0, 0);
    vm.guest().spawn("burn0", cpuBound("burn0"), 0);
    long[] ran = {-1};
    Task sleeper = vm.guest().spawnSleeping("sleeper",
        Program.named("s").run(t -> ran[0] = sim.now()).work(500 * US, "w").build(), 1);
    at(machine, 7 * MS, () -> vm.guest().wakeUpNow(sleeper, null));
    RunRecorder rec = new RunRecorder(machine, host.cpu(0));
    machine.setTrace(rec);
    sim.runUntil(9 * MS);

    assertThat(ran[0]).isEqualTo(7 * MS);
    assertThat(rec.onCpu(vm.vcpus().get(0), 0, 7 * MS)).isEqualTo(7 * MS);
    assertThat(rec.onCpu(vm.vcpus().get(1), 7 * MS, 7_500 * US)).isEqualTo(500 * US);
  }

  // ---------------------------------------------------------------------------------------
  // SMT gang dispatch.

  /**
   * 2 cores × SMT8 = 16 hardware threads; an LPAR of 4 VPs × 8 threads = 32 vCPUs with 2.0
   * units (0.5 per VP = 5 ms per window). VP 0 (vCPUs 0-7) and VP 2 (16-23) share core 0;
   * VP 1 (8-15) and VP 3 (24-31) share core 1. Every thread of VP 0, 1 and 3 burns; VP 2 has
   * one busy thread (vCPU 16) and 7 that cede at once.
   */
  @Test
  void smt8_threadsOfAVpAreDispatchedAndPreemptedTogether_entitlementIsPerVp() {
    PowervmDispatchScheduler phyp = (PowervmDispatchScheduler) SchedulerContexts.create(factory, 
        Map.of("entitlement", "2.0", "smt", "8"));
    Kernel host = machine.createHost("phyp", 16, KernelConfig.zeroCost(MS), phyp);
    Vm vm = machine.createVm("lpar", 32, KernelConfig.zeroCost(10 * MS), CfsScheduler.withDefaults(),
        HypervisorConfig.zeroCost());
    for (int v = 0; v < 32; v++) {
      if (v < 16 || v >= 24 || v == 16) {
        vm.guest().spawn("burn" + v, cpuBound("burn" + v), v);
      }
    }
    // every 50 us: a VP's busy threads are all on or all off, and a core runs one VP at a time
    long[] samples = {0};
    long[][] onSamples = new long[4][1];
    boolean[] bad = {false};
    StringBuilder why = new StringBuilder();
    SchedTestSupport.every(machine, 1, 50 * US, () -> {
      samples[0]++;
      for (int vp = 0; vp < 4; vp++) {
        int on = 0;
        int busy = 0;
        for (int t = 0; t < 8; t++) {
          Task vcpu = vm.vcpus().get(vp * 8 + t);
          int busyIndex = vp * 8 + t;
          boolean isBusy = busyIndex < 16 || busyIndex >= 24 || busyIndex == 16;
          if (isBusy) {
            busy++;
            if (vcpu.onCpu()) {
              on++;
              int core = vcpu.cpu().index() / 8;
              if (core != vp % 2 || vcpu.cpu().index() % 8 != t) {
                bad[0] = true;
                why.append(vcpu).append(" on ").append(vcpu.cpu()).append(' ');
              }
            }
          } else if (vcpu.onCpu()) {
            bad[0] = true;
            why.append("ceded ").append(vcpu).append(" on cpu ");
          }
        }
        if (on != 0 && on != busy) {
          bad[0] = true;
          why.append("vp").append(vp).append(' ').append(on).append('/').append(busy).append(" at ")
              .append(sim.now()).append(' ');
        }
        if (on > 0) {
          onSamples[vp][0]++;
        }
      }
      for (int core = 0; core < 2; core++) {
        if (vm.vcpus().get(core * 8).onCpu() && vm.vcpus().get(core * 8 + 16).onCpu()) {
          bad[0] = true;
          why.append("two VPs on core ").append(core).append(' ');
        }
      }
    });
    RunRecorder rec = new RunRecorder(machine, host.cpu(13)); // vCPU 13 = VP 1, thread 5 = core 1, thread 5
    machine.setTrace(rec);
    sim.runUntil(100 * MS);

    assertThat(bad[0]).as(why.toString()).isFalse();
    for (int vp = 0; vp < 4; vp++) {
      assertThat(phyp.entitlementNs(vm.vcpus().get(vp * 8 + 3))).as("per VP, not per thread").isEqualTo(5 * MS);
    }
    // two busy VPs per core, 5 ms each per window: each VP is dispatched half of the time
    for (int vp = 0; vp < 4; vp++) {
      assertThat((double) onSamples[vp][0] / samples[0]).as("vp%s share", vp).isBetween(0.45, 0.55);
    }
    // a dispatched VP's thread runs its entitlement exactly: 5 ms of every window
    for (long w = 1; w < 10; w++) {
      long from = w * WINDOW;
      assertThat(rec.onCpu(vm.vcpus().get(13), from, from + WINDOW)).as("window %s", w).isEqualTo(5 * MS);
    }
    assertThat(phyp.exhaustions(host.cpu(0))).isGreaterThanOrEqualTo(10);
  }

  @Test
  void factory_entitlementForEachLparOverridesTheDefault() {
    PowervmDispatchScheduler phyp = new PowervmDispatchScheduler(WINDOW, 0, false).entitle("small", 0.5);
    machine.createHost("phyp", 4, KernelConfig.zeroCost(MS), phyp);
    Vm big = machine.createVm("big", 2, KernelConfig.zeroCost(10 * MS), CfsScheduler.withDefaults(),
        HypervisorConfig.zeroCost());
    Vm small = machine.createVm("small", 2, KernelConfig.zeroCost(10 * MS), CfsScheduler.withDefaults(),
        HypervisorConfig.zeroCost());
    assertThat(phyp.entitlementNs(big.vcpus().get(0))).isEqualTo(WINDOW);
    assertThat(phyp.entitlementNs(small.vcpus().get(1))).isEqualTo(2_500 * US);
  }

  @Test
  void factory_unknownOption_isRejected() {
    assertThat(factory.name()).isEqualTo("powervm-dispatch");
    assertThatThrownBy(() -> SchedulerContexts.create(factory, Map.of("entitled", "2.0")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("[entitled]")
        .hasMessageContaining("window, entitlement, capped");
  }

  @Test
  void factory_badSmt_isRejectedWithTheAllowedValues() {
    assertThatThrownBy(() -> SchedulerContexts.create(factory, Map.of("smt", "3")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("[smt]")
        .hasMessageContaining("[3]")
        .hasMessageContaining("[1, 2, 4, 8]");
  }

  @Test
  void smt8_hostCpusNotWholeCores_isRejected() {
    PowervmDispatchScheduler phyp = (PowervmDispatchScheduler) SchedulerContexts.create(factory, Map.of("smt", "8"));
    assertThatThrownBy(() -> machine.createHost("phyp", 12, KernelConfig.zeroCost(MS), phyp))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not whole cores");
  }
}

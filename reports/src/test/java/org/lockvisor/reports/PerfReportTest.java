package org.lockvisor.reports;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Vm;
import org.lockvisor.machine.config.HypervisorConfig;
import org.lockvisor.machine.config.KernelConfig;
import org.lockvisor.scheduler.builtin.RoundRobinScheduler;

/**
 * The guest-sampled perf report counts only time the guest's vCPUs execute, by leaf symbol;
 * hypervisor work on the VM's behalf appears as [H] only when the hypervisor is sampled
 * (PowerVM), and time the vCPU is preempted by another host task never appears.
 */
class PerfReportTest {
  private static final long MS = 1_000_000;

  private record Rig(Machine machine, Vm vm) {}

  /** One vCPU on one host CPU shared with a host hog; the guest does 1 ms foo, an hcall, 2 ms bar. */
  private static Rig run(boolean partitionFirmware, long hcallNs) {
    Machine m = new Machine(new Simulation(1));
    KernelConfig k = KernelConfig.zeroCost(4 * MS);
    m.createHost("host", 1, k, new RoundRobinScheduler(500_000));
    Vm vm = m.createVm("vm0", 1, k, new RoundRobinScheduler(3 * MS), new HypervisorConfig(0, 0, 0, partitionFirmware),
        0);
    vm.guest().spawn("bench", Program.named("main")
        .work(MS, "foo")
        .call(vm.hypervisorCall("H_TEST", hcallNs))
        .work(2 * MS, "bar")
        .build());
    m.host().spawn("hog", Program.named("hog").work(20 * MS, "hog_loop").build(), 0);
    m.sim().runUntil(100 * MS);
    return new Rig(m, vm);
  }

  @Test
  void guestSampled_kvm_onlyGuestExecutionCounts() {
    Rig r = run(false, MS);
    PerfReport p = PerfReport.guest(r.machine(), r.vm(), false, "bench");
    assertThat(p.totalNs()).isEqualTo(3 * MS);
    assertThat(p.percent("foo")).isCloseTo(100.0 / 3, within(1e-6));
    assertThat(p.percent("bar")).isCloseTo(200.0 / 3, within(1e-6));
    assertThat(p.percent("hog_loop")).isZero(); // host work while the vCPU is preempted is invisible
    assertThat(p.hypervisorPercent()).isZero();
  }

  @Test
  void guestSampled_partitionFirmware_hypervisorWorkIsH() {
    Rig r = run(true, MS);
    PerfReport p = PerfReport.guest(r.machine(), r.vm(), true, "bench");
    assertThat(p.totalNs()).isEqualTo(4 * MS);
    assertThat(p.hypervisorPercent()).isCloseTo(25.0, within(1e-6));
    PerfReport.Line h = p.lines().stream().filter(l -> l.symbol().equals("H_TEST")).findFirst().orElseThrow();
    assertThat(h.marker()).isEqualTo('H');
    assertThat(h.sharedObject()).isEqualTo(PerfReport.UNKNOWN_DSO);
    assertThat(h.command()).isEqualTo("bench");
    assertThat(p.lines().get(0).symbol()).isEqualTo("bar"); // sorted by overhead
  }

  @Test
  void format_perfLayout() {
    Rig r = run(true, MS);
    PerfReport p = PerfReport.guest(r.machine(), r.vm(), true, "bench");
    assertThat(p.format(0)).anyMatch(l -> l.startsWith("# Overhead  Command"))
        .anyMatch(l -> l.matches(" +50\\.00%  bench +\\[kernel\\.vmlinux\\]  \\[k\\] bar"))
        .anyMatch(l -> l.matches(" +25\\.00%  bench +\\[unknown\\] +\\[H\\] H_TEST"));
    assertThat(p.format(1).stream().filter(l -> !l.startsWith("#"))).hasSize(1);
  }
}

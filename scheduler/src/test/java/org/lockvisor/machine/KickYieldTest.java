package org.lockvisor.machine;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.machine.config.HypervisorConfig;
import org.lockvisor.machine.config.KernelConfig;
import org.lockvisor.scheduler.builtin.CfsScheduler;

/**
 * The queue-head boost of 266e85a5ec91 (arch/x86/kvm/x86.c): after {@code kvm_pv_kick_cpu_op},
 * {@code KVM_HC_KICK_CPU} calls {@code kvm_sched_yield}, which yields only to a target whose
 * {@code vcpu->ready} is set — woken from its halt by the kick (d73eb57b80b9: {@code
 * kvm_vcpu_wake_up}) or preempted, and not scheduled in since — and never when the hypervisor
 * lacks the boost.
 */
class KickYieldTest {
  private static final long MS = 1_000_000;

  private static Program burn() {
    return Program.named("burn").loopWhile(t -> true, Program.named("b").work(MS, "burn").build()).build();
  }

  /** vCPU 0 busy, vCPU 1 idle (halted, asleep), both on {@code cpus} host CPUs as pinned. */
  private static Vm vm(boolean kickYield, int cpus, int... pinning) {
    Simulation sim = new Simulation(1);
    Machine machine = new Machine(sim);
    machine.createHost("host", cpus, KernelConfig.zeroCost(MS), CfsScheduler.withDefaults());
    Vm vm = machine.createVm("vm", 2, KernelConfig.zeroCost(4 * MS), CfsScheduler.withDefaults(),
        new HypervisorConfig(500, 0, 0).withKickYield(kickYield), pinning);
    vm.guest().spawn("burn", burn(), 0);
    sim.runUntil(2 * MS);
    return vm;
  }

  @Test
  void kickedWaiterWokenButNotRunning_isReady_andTheKickerYieldsToIt() {
    Vm vm = vm(true, 1, 0, 0);
    VcpuTask kicker = vm.vcpus().get(0);
    VcpuTask waiter = vm.vcpus().get(1);
    assertThat(waiter.halted).as("the idle vCPU halted").isTrue();

    waiter.pvKick(); // kvm_vcpu_kick -> kvm_vcpu_wake_up: runnable behind the kicker, ready
    assertThat(waiter.kvmReady).isTrue();
    assertThat(waiter.kvmPreempted).as("woken, never preempted").isFalse();

    assertThat(kicker.kickYield(waiter)).isTrue();
    assertThat(vm.yieldStats().get(YieldStats.Counter.KICK_YIELD_SUCCESSES)).isEqualTo(1);
  }

  @Test
  void kickedVcpuAlreadyRunning_isNotReady_noYield() {
    Vm vm = vm(true, 2, 0, 1);
    VcpuTask kicker = vm.vcpus().get(0);
    VcpuTask target = vm.vcpus().get(1);
    vm.guest().spawn("burn1", burn(), 1);
    vm.guest().machine().sim().runUntil(4 * MS);

    assertThat(kicker.kickYield(target)).isFalse();
    assertThat(vm.yieldStats().get(YieldStats.Counter.KICK_YIELD_NOT_READY)).isEqualTo(1);
    assertThat(vm.yieldStats().get(YieldStats.Counter.KICK_YIELD_ATTEMPTS)).isZero();
  }

  @Test
  void hypervisorWithoutTheBoost_neverYields() {
    Vm vm = vm(false, 1, 0, 0);
    VcpuTask waiter = vm.vcpus().get(1);
    waiter.pvKick();

    assertThat(vm.vcpus().get(0).kickYield(waiter)).isFalse();
    assertThat(vm.yieldStats().get(YieldStats.Counter.KICK_YIELD_ATTEMPTS)
        + vm.yieldStats().get(YieldStats.Counter.KICK_YIELD_NOT_READY)).isZero();
  }
}

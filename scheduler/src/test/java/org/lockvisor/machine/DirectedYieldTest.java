package org.lockvisor.machine;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.collect.ImmutableSet;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.lockvisor.core.sim.EventHandler;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.machine.config.DirectedYield;
import org.lockvisor.machine.config.HypervisorConfig;
import org.lockvisor.machine.config.KernelConfig;
import org.lockvisor.machine.config.SpinTrapConfig;
import org.lockvisor.scheduler.builtin.CfsScheduler;

/**
 * kvm_vcpu_on_spin as virt/kvm/kvm_main.c has it (3.2, 3.8, 3.10, ready): a target in guest mode is
 * never yielded to (PF_VCPU), the 3.10 filter skips vCPUs that are not preempted, the ready
 * filter (d73eb57b80b9) also takes vCPUs woken from a halt that have not run since, dy_eligible
 * alternates a spinning candidate's eligibility, candidates are taken round robin after
 * last_boosted_vcpu, and ple_window_shrink shrinks the window at sched_in.
 */
class DirectedYieldTest {
  private static final long US = 1_000;
  private static final long MS = 1_000_000;
  private static final SpinTrapConfig TRAP =
      SpinTrapConfig.fixed(2 * US, "PAUSE_INSTRUCTION", 0, 0, true, ImmutableSet.of());

  private static Program spinForever() {
    return Program.named("waiter").op(Ops.spinUntil("native_queued_spin_lock_slowpath", t -> false, 0)).build();
  }

  private static Program burn() {
    return Program.named("burn").loopWhile(t -> true, Program.named("b").work(MS, "burn").build()).build();
  }

  /** Two vCPUs each on its own physical CPU: vCPU 0 spins, vCPU 1 runs guest work. */
  private static YieldStats twoRunningVcpus(DirectedYield variant) {
    Simulation sim = new Simulation(1);
    Machine machine = new Machine(sim);
    machine.createHost("host", 2, KernelConfig.zeroCost(MS), CfsScheduler.withDefaults());
    Vm vm = machine.createVm("vm", 2, KernelConfig.zeroCost(4 * MS), CfsScheduler.withDefaults(),
        new HypervisorConfig(500, 0, 0).withSpinTrap(TRAP).withDirectedYield(variant), 0, 1);
    vm.guest().spawn("spin", spinForever(), 0);
    vm.guest().spawn("burn", burn(), 1);
    sim.runUntil(2 * MS);
    return vm.yieldStats();
  }

  @Test
  void yieldTo_targetRunningInGuest_failsWithoutBoosting() {
    YieldStats s = twoRunningVcpus(DirectedYield.V3_8);

    assertThat(s.pleExits()).isPositive();
    assertThat(s.get(YieldStats.Counter.ATTEMPTS)).isPositive();
    assertThat(s.get(YieldStats.Counter.FAIL_IN_GUEST)).isEqualTo(s.get(YieldStats.Counter.ATTEMPTS));
    assertThat(s.get(YieldStats.Counter.SUCCESSES)).isZero();
    assertThat(s.get(YieldStats.Counter.NO_CANDIDATE)).isEqualTo(s.pleExits());
  }

  @Test
  void preemptedFilter310_runningCandidate_isSkippedBeforeAnyYieldTo() {
    YieldStats s = twoRunningVcpus(DirectedYield.V3_10);

    assertThat(s.get(YieldStats.Counter.ATTEMPTS)).isZero();
    assertThat(s.get(YieldStats.Counter.SKIP_NOT_PREEMPTED)).isPositive();
  }

  /** Guest CPU 0 idles (its vCPU halts) until a holder arrives at 1 ms; vCPU 1 spins from 1 ms. */
  private static YieldStats wokenHolder(DirectedYield variant) {
    Simulation sim = new Simulation(1);
    Machine machine = new Machine(sim);
    machine.createHost("host", 1, KernelConfig.zeroCost(MS), CfsScheduler.withDefaults());
    Vm vm = machine.createVm("vm", 2, KernelConfig.zeroCost(4 * MS), CfsScheduler.withDefaults(),
        new HypervisorConfig(500, 0, 0).withSpinTrap(TRAP).withDirectedYield(variant), 0, 0);
    EventHandler start = (kind, arg) -> {
      vm.guest().spawn("holder", burn(), 0);
      vm.guest().spawn("spin", spinForever(), 1);
    };
    sim.schedule(MS, start, 0, 0);
    sim.runUntil(MS + 300 * US);
    return vm.yieldStats();
  }

  @Test
  void preemptedFilter310_holderWokenFromHaltButNotYetRun_isNotACandidate() {
    // kvm_sched_out sets vcpu->preempted only for a thread switched out while runnable: a vCPU
    // kicked out of its halt that has not run since is skipped (d73eb57b80b9 added vcpu->ready for it)
    YieldStats v310 = wokenHolder(DirectedYield.V3_10);
    YieldStats v38 = wokenHolder(DirectedYield.V3_8);

    assertThat(v310.pleExits()).isPositive();
    assertThat(v310.get(YieldStats.Counter.SUCCESSES)).isZero();
    assertThat(v38.get(YieldStats.Counter.SUCCESSES)).isPositive();
  }

  @Test
  void readyFilter_holderWokenFromHaltButNotYetRun_isACandidate() {
    // d73eb57b80b9 (virt/kvm/kvm_main.c): kvm_vcpu_wake_up sets vcpu->ready when it wakes the
    // thread from kvm_vcpu_block, kvm_sched_in clears it, and kvm_vcpu_on_spin filters on it
    YieldStats ready = wokenHolder(DirectedYield.READY);

    assertThat(ready.pleExits()).isPositive();
    assertThat(ready.get(YieldStats.Counter.SUCCESSES)).isPositive();
    assertThat(ready.get(YieldStats.Counter.SKIP_NOT_PREEMPTED)).isZero();
  }

  @Test
  void readyFilter_runningCandidate_isSkippedBeforeAnyYieldTo() {
    YieldStats s = twoRunningVcpus(DirectedYield.READY);

    assertThat(s.get(YieldStats.Counter.ATTEMPTS)).isZero();
    assertThat(s.get(YieldStats.Counter.SKIP_NOT_READY)).isPositive();
  }

  /** Two vCPUs on one CPU: vCPU 0 spins in the kernel, vCPU 1 runs user code (or kernel code). */
  private static YieldStats spinnerBesideBurner(DirectedYield variant, boolean user) {
    Simulation sim = new Simulation(1);
    Machine machine = new Machine(sim);
    machine.createHost("host", 1, KernelConfig.zeroCost(MS), CfsScheduler.withDefaults());
    Vm vm = machine.createVm("vm", 2, KernelConfig.zeroCost(4 * MS), CfsScheduler.withDefaults(),
        new HypervisorConfig(500, 0, 0).withSpinTrap(TRAP).withDirectedYield(variant), 0, 0);
    Program.Builder b = Program.named("b");
    Program body = (user ? b.userWork(MS, "user_burn") : b.work(MS, "burn")).build();
    vm.guest().spawn("spin", spinForever(), 0);
    vm.guest().spawn("burn", Program.named("burn").loopWhile(t -> true, body).build(), 1);
    sim.runUntil(30 * MS);
    return vm.yieldStats();
  }

  @Test
  void kernelModeFilter414_candidatePreemptedInUserMode_isSkipped() {
    // 4.19 kvm_vcpu_on_spin: if (yield_to_kernel_mode && !kvm_arch_vcpu_in_kernel(vcpu)) continue;
    // x86 handle_pause passes yield_to_kernel_mode = true (PLE fires only at CPL 0)
    YieldStats user414 = spinnerBesideBurner(DirectedYield.V4_14, true);
    YieldStats user310 = spinnerBesideBurner(DirectedYield.V3_10, true);
    YieldStats kernel414 = spinnerBesideBurner(DirectedYield.V4_14, false);

    assertThat(user414.pleExits()).isPositive();
    assertThat(user414.get(YieldStats.Counter.SKIP_USER_MODE)).isPositive();
    assertThat(user414.get(YieldStats.Counter.SUCCESSES)).isZero();
    assertThat(user310.get(YieldStats.Counter.SUCCESSES)).isPositive();
    assertThat(kernel414.get(YieldStats.Counter.SKIP_USER_MODE)).isZero();
    assertThat(kernel414.get(YieldStats.Counter.SUCCESSES)).isPositive();
  }

  @Test
  void dyEligible_candidateInsideItsOwnSpinLoop_isEligibleEveryOtherCheck() {
    Simulation sim = new Simulation(1);
    Machine machine = new Machine(sim);
    machine.createHost("host", 1, KernelConfig.zeroCost(MS), CfsScheduler.withDefaults());
    Vm vm = machine.createVm("vm", 1, KernelConfig.zeroCost(4 * MS), CfsScheduler.withDefaults(),
        HypervisorConfig.zeroCost());
    VcpuTask v = vm.vcpus().get(0);

    assertThat(Vm.eligibleForDirectedYield(v)).isTrue(); // not in a spin loop: always
    assertThat(Vm.eligibleForDirectedYield(v)).isTrue();
    v.inSpinLoop = true;
    v.dyEligible = false;
    List<Boolean> answers = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      answers.add(Vm.eligibleForDirectedYield(v));
    }
    assertThat(answers).containsExactly(false, true, false, true);
  }

  @Test
  void roundRobin_twoPreemptedCandidates_areBoostedInTurnAfterLastBoosted() {
    // three vCPUs on one physical CPU: vCPU 0 spins, vCPUs 1 and 2 burn; whenever vCPU 0 traps,
    // both others are preempted and eligible
    Simulation sim = new Simulation(1);
    Machine machine = new Machine(sim);
    machine.createHost("host", 1, KernelConfig.zeroCost(MS), CfsScheduler.withDefaults());
    Vm vm = machine.createVm("vm", 3, KernelConfig.zeroCost(4 * MS), CfsScheduler.withDefaults(),
        new HypervisorConfig(500, 0, 0).withSpinTrap(TRAP).withDirectedYield(DirectedYield.V3_10), 0, 0, 0);
    vm.guest().spawn("spin", spinForever(), 0);
    vm.guest().spawn("burn1", burn(), 1);
    vm.guest().spawn("burn2", burn(), 2);
    List<Integer> boosted = new ArrayList<>();
    long[] seen = {0};
    EventHandler probe = new EventHandler() {
      @Override
      public void onEvent(int kind, long arg) {
        long n = vm.yieldStats().get(YieldStats.Counter.SUCCESSES);
        if (n != seen[0]) {
          seen[0] = n;
          boosted.add(vm.lastBoostedVcpu());
        }
        sim.schedule(US / 2, this, 0, 0);
      }
    };
    sim.schedule(0, probe, 0, 0);
    sim.runUntil(100 * MS);

    assertThat(boosted).hasSizeGreaterThan(4);
    for (int i = 1; i < boosted.size(); i++) {
      assertThat(boosted.get(i)).as("boost %s of %s", i, boosted).isNotEqualTo(boosted.get(i - 1));
    }
    assertThat(boosted).doesNotContain(0);
  }

  @Test
  void pleShrink_dividesTheWindowAtSchedIn_neverBelowTheBase() {
    Simulation sim = new Simulation(1);
    Machine machine = new Machine(sim);
    machine.createHost("host", 1, KernelConfig.zeroCost(MS), CfsScheduler.withDefaults());
    Vm shrinking = machine.createVm("a", 1, KernelConfig.zeroCost(4 * MS), CfsScheduler.withDefaults(),
        new HypervisorConfig(0, 0, 0).withSpinTrap(TRAP).withPleShrink(2));
    Vm resetting = machine.createVm("b", 1, KernelConfig.zeroCost(4 * MS), CfsScheduler.withDefaults(),
        new HypervisorConfig(0, 0, 0).withSpinTrap(TRAP));

    // __shrink_ple_window: modifier 2 below the base divides; the base is the floor
    assertThat(shrinking.shrinkPleWindow(16 * US)).isEqualTo(8 * US);
    assertThat(shrinking.shrinkPleWindow(3 * US)).isEqualTo(2 * US);
    // ple_window_shrink 0: back to the base (0 = the configured window)
    assertThat(resetting.shrinkPleWindow(16 * US)).isZero();
  }
}

package org.lockvisor.machine;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.collect.ImmutableSet;
import org.junit.jupiter.api.Test;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.machine.config.DirectedYield;
import org.lockvisor.machine.config.HypervisorConfig;
import org.lockvisor.machine.config.KernelConfig;
import org.lockvisor.machine.config.SpinTrapConfig;
import org.lockvisor.scheduler.builtin.CfsScheduler;

/**
 * Pause-loop exiting and kvm_vcpu_on_spin: two vCPUs share one physical CPU; guest task A holds a
 * "lock" for 5 ms of guest time, so its vCPU is preempted by the host mid-hold; task B spins for
 * the lock on the other vCPU. Without a spin trap B burns its vCPU's whole host slice; with PLE
 * and directed yield it traps after the window and yields to the preempted holder's vCPU.
 */
class SpinTrapTest {
  private static final long US = 1_000;
  private static final long MS = 1_000_000;

  private record Outcome(long spinNs, long acquiredAt, long traps, long yields, long pauseExits, long releasedAt) {}

  private Outcome run(SpinTrapConfig trap, String spinSymbol) {
    Simulation sim = new Simulation(3);
    Machine machine = new Machine(sim);
    machine.createHost("host", 1, KernelConfig.zeroCost(MS), CfsScheduler.withDefaults());
    Vm vm = machine.createVm("vm", 2, KernelConfig.zeroCost(4 * MS), CfsScheduler.withDefaults(),
        // 3.8's candidate loop: the holder's vCPU woke from its boot halt and may not have run
        // since, and 3.10's vcpu->preempted filter skips such a vCPU (see DirectedYieldTest)
        new HypervisorConfig(500, 0, 0).withSpinTrap(trap).withDirectedYield(DirectedYield.V3_8), 0, 0);
    boolean[] held = {true};
    long[] acquired = {-1};
    long[] released = {-1};
    Task[] spinner = new Task[1];
    vm.guest().spawn("holder", Program.named("holder")
        .work(5 * MS, "critical_section")
        .run(t -> {
          held[0] = false;
          released[0] = sim.now();
          spinner[0].poke(0);
        })
        .build(), 0);
    spinner[0] = vm.guest().spawn("waiter", Program.named("waiter")
        .work(100 * US, "prepare")
        .op(Ops.spinUntil(spinSymbol, t -> !held[0], 0))
        .run(t -> acquired[0] = sim.now())
        .build(), 1);
    sim.runUntil(100 * MS);
    machine.syncAccounting();
    int sym = machine.symbols().symbol(spinSymbol);
    long[] spin = {0};
    machine.account().forEach((cpu, thread, stack, ns) -> {
      if (stack != 0 && machine.symbols().leaf(stack) == sym) {
        spin[0] += ns;
      }
    });
    VcpuTask.ExitStats pause = vm.vcpus().get(1).exitStats().get(trap.exitReason());
    return new Outcome(spin[0], acquired[0], vm.spinTraps(), vm.directedYields(),
        pause == null ? 0 : pause.count(), released[0]);
  }

  @Test
  void directedYield_runsThePreemptedHolder_andTheSpinCollapses() {
    Outcome off = run(SpinTrapConfig.OFF, "native_queued_spin_lock_slowpath");
    Outcome ple = run(SpinTrapConfig.fixed(2 * US, "PAUSE_INSTRUCTION", 100, 1 * US, true, ImmutableSet.of()),
        "native_queued_spin_lock_slowpath");

    assertThat(off.acquiredAt()).isPositive();
    assertThat(ple.acquiredAt()).isPositive();
    assertThat(off.traps()).isZero();
    // Without a trap the waiter spins for a good part of its vCPU's host slice (ms).
    assertThat(off.spinNs()).isGreaterThan(MS);
    // With it, every spin window ends in a trap that yields to the holder's preempted vCPU.
    assertThat(ple.traps()).isPositive();
    assertThat(ple.yields()).isPositive().isLessThanOrEqualTo(ple.traps());
    assertThat(ple.pauseExits()).isEqualTo(ple.traps());
    // CFS grants the yield only while the holder's vCPU is within a wakeup granularity of
    // vruntime of the leftmost (wakeup_preempt_entity < 1): right after the holder's own slice it
    // is not, so the waiter keeps trapping until fairness lets the boost through. Less than half
    // the spin, not none.
    assertThat(ple.spinNs()).isLessThan(off.spinNs() / 2);
    assertThat(ple.acquiredAt()).isLessThan(off.acquiredAt());
  }

  @Test
  void trapWithoutDirectedYield_exitsButDoesNotHelp() {
    Outcome off = run(SpinTrapConfig.OFF, "native_queued_spin_lock_slowpath");
    Outcome trapOnly = run(SpinTrapConfig.fixed(2 * US, "PAUSE_INSTRUCTION", 100, 1 * US, false, ImmutableSet.of()),
        "native_queued_spin_lock_slowpath");

    assertThat(trapOnly.traps()).isGreaterThan(100);
    assertThat(trapOnly.yields()).isZero();
    // The waiter still burns its slice: in guest spinning plus in exits.
    assertThat(trapOnly.acquiredAt()).isGreaterThanOrEqualTo(off.acquiredAt());
  }

  @Test
  void dynamicWindow_growsPerTrapWhileTheVcpuKeepsRunning_soFewerTraps() {
    Outcome fixed = run(SpinTrapConfig.fixed(2 * US, "PAUSE_INSTRUCTION", 100, 1 * US, false, ImmutableSet.of()),
        "native_queued_spin_lock_slowpath");
    Outcome growing = run(new SpinTrapConfig(2 * US, "PAUSE_INSTRUCTION", 100, 1 * US, false, 2, 1_000 * US,
        ImmutableSet.of()), "native_queued_spin_lock_slowpath");

    // A slice of several ms: fixed 2 us windows trap over a thousand times; doubling windows
    // (2, 4, 8 ... 1000 us) reach the cap after nine traps and then trap once per ms.
    assertThat(fixed.traps()).isGreaterThan(1_000);
    assertThat(growing.traps()).isPositive().isLessThan(fixed.traps() / 20);
  }

  @Test
  void wfe_doesNotTrapCpuRelaxLoops() {
    SpinTrapConfig wfe = SpinTrapConfig.fixed(1 * US, "WFx", 100, 1 * US, true, SpinTrapConfig.CPU_RELAX_LOOPS);

    Outcome osq = run(wfe, "osq_lock");
    Outcome ticket = run(wfe, "arch_spin_lock");

    assertThat(osq.traps()).isZero();
    assertThat(osq.spinNs()).isGreaterThan(MS);
    assertThat(ticket.traps()).isPositive();
    assertThat(ticket.yields()).isPositive();
  }
}

package org.lockvisor.machine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.machine.config.HypervisorConfig;
import org.lockvisor.machine.config.KernelConfig;
import org.lockvisor.scheduler.builtin.CfsScheduler;

/**
 * Lock-holder preemption emerges from the two-level machine: when the host preempts the vCPU
 * thread of a guest task that holds a lock, the holder freezes inside its critical section and a
 * spinner on another vCPU burns its CPU for at least the whole time the holder's vCPU is off its
 * physical CPU. Nothing in the model says "LHP"; the episodes are counted from host switches.
 */
class LockHolderPreemptionTest {
  private static final long US = 1_000;
  private static final long MS = 1_000_000;
  private static final long CRITICAL = 2 * MS;

  private final Simulation sim = new Simulation(1);
  private final Machine machine = new Machine(sim);

  private record Interval(long start, long end) {}

  private static final class Scenario {
    final List<Interval> spins = new ArrayList<>();
    final List<Interval> holderOffCpuWhileLocked = new ArrayList<>();
    final List<Interval> heldPeriods = new ArrayList<>();
    Task spinner;
    VcpuTask holderVcpu;
  }

  /** Guest vCPU 0 (on pCPU 0, shared with a host hog if {@code hog}) holds a flag lock; vCPU 1 spins on it. */
  private Scenario run(boolean hog, long durationNs) {
    Kernel host = machine.createHost("host", 2, KernelConfig.zeroCost(MS), CfsScheduler.withDefaults());
    Vm vm = machine.createVm("vm", 2, KernelConfig.zeroCost(4 * MS), CfsScheduler.withDefaults(),
        HypervisorConfig.zeroCost(), 0, 1);
    if (hog) {
      host.spawn("hog", Program.named("hog")
          .loopWhile(t -> true, Program.named("hog_loop").userWork(MS, "hog").build()).build(), 0);
    }
    Scenario s = new Scenario();
    s.holderVcpu = vm.vcpus().get(0);
    boolean[] locked = {false};
    long[] lockedAt = {-1};
    long[] mark = {-1};
    Task[] spinner = new Task[1];
    vm.guest().spawn("holder", Program.named("holder")
        .loopWhile(t -> true, Program.named("holder_loop")
            .run(t -> {
              locked[0] = true;
              lockedAt[0] = sim.now();
              spinner[0].poke(0);
            })
            .work(CRITICAL, "critical_section")
            .run(t -> {
              locked[0] = false;
              s.heldPeriods.add(new Interval(lockedAt[0], sim.now()));
              spinner[0].poke(0);
            })
            .userWork(MS, "outside")
            .build())
        .build(), 0);
    spinner[0] = vm.guest().spawn("spinner", Program.named("spinner")
        .loopWhile(t -> true, Program.named("spinner_loop")
            .op(Ops.spinUntil("wait_for_holder", t -> locked[0], 0))
            .run(t -> mark[0] = sim.now())
            .op(Ops.spinUntil("lock_spin", t -> !locked[0], 0))
            .run(t -> s.spins.add(new Interval(mark[0], sim.now())))
            .build())
        .build(), 1);
    s.spinner = spinner[0];
    long[] offSince = {-1};
    machine.setTrace(new MachineTrace() {
      @Override
      public void onSwitch(Cpu cpu, Task prev, Task next) {
        if (prev == s.holderVcpu && locked[0]) {
          offSince[0] = sim.now();
        } else if (next == s.holderVcpu && offSince[0] >= 0) {
          s.holderOffCpuWhileLocked.add(new Interval(offSince[0], sim.now()));
          offSince[0] = -1;
        }
      }
    });
    sim.runUntil(durationNs);
    machine.syncAccounting();
    return s;
  }

  private long spinTime(Task t, String symbol) {
    long[] sum = {0};
    machine.account().forEach((cpu, thread, stack, ns) -> {
      if (thread == t.id() && machine.symbols().name(machine.symbols().leaf(stack)).equals(symbol)) {
        sum[0] += ns;
      }
    });
    return sum[0];
  }

  private static long total(List<Interval> xs) {
    return xs.stream().mapToLong(i -> i.end() - i.start()).sum();
  }

  @Test
  void holderVcpuPreemptedByHostHog_spinnerSpinsAtLeastTheWholeOffCpuTimeOfEveryEpisode() {
    Scenario s = run(true, 500 * MS);

    // pCPU 0 alternates hog and vCPU thread in CFS slices of ~6-7 ms (2 host CPUs: latency 12 ms)
    assertThat(s.holderOffCpuWhileLocked).as("lock-holder preemption episodes").hasSizeGreaterThan(15);
    for (Interval off : s.holderOffCpuWhileLocked) {
      assertThat(s.spins).as("a spin covering the episode %s", off)
          .anyMatch(spin -> spin.start() <= off.start() && spin.end() >= off.end());
    }
    long spin = spinTime(s.spinner, "lock_spin");
    long offCpu = total(s.holderOffCpuWhileLocked);
    assertThat(spin).isEqualTo(total(s.spins));
    assertThat(spin).isGreaterThanOrEqualTo(offCpu);
    // every held period = 2 ms of critical section + the time the holder's vCPU was off CPU
    assertThat(total(s.heldPeriods)).isEqualTo(s.heldPeriods.size() * CRITICAL + offCpuOfCompleted(s));
    assertThat(s.holderVcpu.involuntarySwitches()).isGreaterThan(s.holderOffCpuWhileLocked.size());
  }

  /** Off-CPU time inside held periods that completed (the last one may still be open). */
  private static long offCpuOfCompleted(Scenario s) {
    long sum = 0;
    for (Interval off : s.holderOffCpuWhileLocked) {
      for (Interval held : s.heldPeriods) {
        if (held.start() <= off.start() && off.end() <= held.end()) {
          sum += off.end() - off.start();
        }
      }
    }
    return sum;
  }

  @Test
  void holderVcpuAlone_noEpisodes_spinnerSpinsExactlyTheCriticalSections() {
    Scenario s = run(false, 98_500 * US); // cycles of 3 ms: ends in a lock-free gap

    assertThat(s.holderOffCpuWhileLocked).isEmpty();
    assertThat(s.spins).hasSize(33);
    assertThat(s.spins).allSatisfy(i -> assertThat(i.end() - i.start()).isEqualTo(CRITICAL));
    assertThat(spinTime(s.spinner, "lock_spin")).isEqualTo(s.spins.size() * CRITICAL);
  }
}

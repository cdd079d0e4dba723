package org.lockvisor.machine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.machine.config.HostActivity;
import org.lockvisor.machine.config.KernelConfig;
import org.lockvisor.scheduler.builtin.CfsScheduler;

/**
 * The asynchronous host: softirqs and kworkers land on each physical CPU at its own random times
 * (deterministic per seed), so CPUs running identical loads switch at different instants; with
 * the activity off they do not switch at all. Skewed ticks put CPU i at i × (tick / 2) / nr_cpus.
 */
class HostActivityTest {
  private static final long MS = 1_000_000;

  private record Outcome(long fingerprint, long[] switches, long softirqs, long kworkers) {}

  private static Outcome run(long seed, HostActivity activity) {
    Simulation sim = new Simulation(seed);
    Machine machine = new Machine(sim);
    Kernel host = machine.createHost("host", 4, KernelConfig.zeroCost(4 * MS), CfsScheduler.withDefaults());
    host.setHostActivity(activity);
    for (int i = 0; i < 4; i++) {
      host.spawn("hog" + i, Program.named("hog").loopWhile(t -> true,
          Program.named("h").userWork(MS, "hog").build()).build(), i);
    }
    sim.runUntil(1_000 * MS);
    long[] switches = new long[4];
    for (int i = 0; i < 4; i++) {
      switches[i] = host.cpu(i).contextSwitches();
    }
    return new Outcome(sim.fingerprint(), switches, host.backgroundSoftirqs(), host.backgroundKworkerWakeups());
  }

  private static final HostActivity LOAD = new HostActivity(HostActivity.TickPhase.ALIGNED, 1000, 3_000, 100, 10_000);

  @Test
  void background_identicalCpus_switchAtDifferentCounts() {
    Outcome o = run(1, LOAD);

    // about 100 kworker runs per CPU per second, each two switches; Poisson counts differ
    Set<Long> distinct = new HashSet<>();
    for (long s : o.switches()) {
      assertThat(s).isBetween(120L, 320L);
      distinct.add(s);
    }
    assertThat(distinct).hasSizeGreaterThan(1);
    assertThat(o.softirqs()).isBetween(3_600L, 4_400L);
    assertThat(o.kworkers()).isBetween(320L, 480L);
  }

  @Test
  void noBackground_identicalCpus_neverSwitch() {
    Outcome o = run(1, HostActivity.OFF);

    for (long s : o.switches()) {
      assertThat(s).isLessThanOrEqualTo(1); // the first switch from idle to the hog
    }
  }

  @Test
  void background_sameSeed_sameRun_otherSeed_otherRun() {
    assertThat(run(5, LOAD).fingerprint()).isEqualTo(run(5, LOAD).fingerprint());
    assertThat(run(5, LOAD).fingerprint()).isNotEqualTo(run(6, LOAD).fingerprint());
  }

  @Test
  void skewedTicks_cpuIOffsetByITimesHalfATickOverNrCpus() {
    Simulation sim = new Simulation(1);
    Machine machine = new Machine(sim);
    Kernel host = machine.createHost("host", 4, KernelConfig.zeroCost(4 * MS), CfsScheduler.withDefaults());
    host.setHostActivity(HostActivity.OFF.withTickPhase(HostActivity.TickPhase.SKEWED));
    long[] firstTick = {-1, -1, -1, -1};
    for (int i = 0; i < 4; i++) {
      int cpu = i;
      host.spawn("t" + i, Program.named("t").loopWhile(t -> true, Program.named("x")
          .work(100_000, "w").run(t -> {
            if (firstTick[cpu] < 0 && t.cpu().interrupts() > 0) {
              firstTick[cpu] = sim.now();
            }
          }).build()).build(), i);
    }
    sim.runUntil(10 * MS);

    // the grid is k × 4 ms + i × 0.5 ms: CPU 0 first ticks at 4 ms, CPU i > 0 at i × 0.5 ms;
    // the first 100 us piece ending after it sees the interrupt
    for (int i = 0; i < 4; i++) {
      long tick = i == 0 ? 4 * MS : i * 500_000L;
      assertThat(firstTick[i]).as("cpu %s", i).isGreaterThanOrEqualTo(tick).isLessThanOrEqualTo(tick + 100_000);
    }
  }
}

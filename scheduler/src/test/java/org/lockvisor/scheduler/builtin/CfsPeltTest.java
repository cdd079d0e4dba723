package org.lockvisor.scheduler.builtin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.lockvisor.scheduler.builtin.SchedTestSupport.MS;
import static org.lockvisor.scheduler.builtin.SchedTestSupport.US;
import static org.lockvisor.scheduler.builtin.SchedTestSupport.at;
import static org.lockvisor.scheduler.builtin.SchedTestSupport.cpuBound;

import org.junit.jupiter.api.Test;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.machine.Cpu;
import org.lockvisor.machine.CpuTopology;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Ops;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Task;
import org.lockvisor.machine.config.KernelConfig;

/**
 * PELT load tracking of era 4.8 (Linux 4.8 kernel/sched/fair.c {@code __update_load_avg},
 * {@code decay_load}, {@code __compute_runnable_contrib}, {@code init_entity_runnable_average},
 * {@code enqueue/dequeue_entity_load_avg}) and its use by fork placement: a period's contribution
 * halves in 32 periods of 1024 × 1024 ns, the series of an always-runnable entity converges to
 * its weight, a blocked task's load halves in 32 periods, a new task counts with its full weight
 * so two consecutive forks do not share an idle CPU, and a runqueue of tasks just woken from a
 * long sleep looks lighter to {@code find_idlest_group} than one running task (where the 3.0-era
 * runnable weight says the opposite). Expectations follow from y^32 = 1/2 and the cited rules.
 */
class CfsPeltTest {
  /** One PELT period: 1024 units of 1024 ns. */
  private static final long PERIOD_NS = 1024L * 1024L;

  private final Simulation sim = new Simulation(11);
  private final Machine machine = new Machine(sim);

  private Kernel host(int cpus, CfsScheduler cfs) {
    Kernel host = machine.createHost("host", cpus, KernelConfig.zeroCost(MS).withLlcSize(cpus), cfs);
    host.setTopology(CpuTopology.flat(cpus));
    return host;
  }

  /** Runs {@code ranNs}, sleeps until {@code woken[0]} is set, then runs forever. */
  private static Program runSleepRun(long ranNs, boolean[] woken) {
    return Program.named("rsr")
        .work(ranNs, "first_run")
        .op(Ops.sleepUntil(null, x -> woken[0]))
        .loopWhile(t -> true, Program.named("rsr_loop").work(MS, "rsr_work").build())
        .build();
  }

  @Test
  void decayLoad_32Periods_halvesTheValue() {
    long v = 1024L * Pelt.LOAD_AVG_MAX;
    // y^32 = 1/2 is a shift; the table's y^0 = 0xffffffff / 2^32 takes off at most one unit
    assertThat(Pelt.decayLoad(v, 32)).isBetween(v / 2 - 1, v / 2);
    assertThat(Pelt.decayLoad(v, 64)).isBetween(v / 4 - 1, v / 4);
    // y = 0.5^(1/32) = 0.97857...: one period takes off about 2.1 %
    assertThat((double) Pelt.decayLoad(v, 1) / v).isBetween(0.9785, 0.9787);
    assertThat(Pelt.decayLoad(v, 32 * 64)).isZero();
  }

  @Test
  void runnableContrib_manyPeriods_isTheSeriesLimit() {
    // 1024 × (y + y^2 + ... + y^32) = 1024 × (1 - 1/2) × y / (1 - y) ≈ 23,382; the kernel's table
    // floors each partial sum, so it may sit a few units per term below
    double y = Math.pow(0.5, 1.0 / 32);
    assertThat((double) Pelt.runnableContrib(32)).isBetween(1024 * 0.5 * y / (1 - y) - 32, 1024 * 0.5 * y / (1 - y));
    assertThat(Pelt.runnableContrib(1000)).isEqualTo(Pelt.LOAD_AVG_MAX);
  }

  @Test
  void update_alwaysRunnable_convergesToTheWeight() {
    Pelt a = new Pelt();
    a.last = 0;
    for (long t = 100 * US; t <= 2_000 * MS; t += 100 * US) {
      a.update(t, 1024);
    }
    assertThat(a.avg).isBetween(990L, 1024L);
  }

  @Test
  void update_blockedFor32Periods_halvesTheLoad() {
    Pelt a = new Pelt();
    a.last = 0;
    a.avg = 1024;
    a.sum = 1024 * Pelt.LOAD_AVG_MAX;
    a.update(32 * PERIOD_NS, 0);
    assertThat(a.avg).isBetween(500L, 512L);
  }

  @Test
  void blockedTask_wokenAfter32Periods_enqueuesWithHalfItsLoad() {
    CfsScheduler cfs = CfsScheduler.withDefaults().era(CfsEra.LINUX_4_8);
    Kernel host = host(2, cfs);
    boolean[] woken = {false};
    Task t = host.spawn("t", runSleepRun(200 * MS, woken), 1);
    long[] before = new long[1];
    at(machine, 201 * MS, () -> before[0] = cfs.loadAvg(t));
    long wakeAt = 200 * MS + 32 * PERIOD_NS + 10 * US;
    long[] after = new long[1];
    at(machine, wakeAt, () -> {
      woken[0] = true;
      host.wakeUpNow(t, null);
      after[0] = cfs.loadAvg(t);
    });
    sim.runUntil(wakeAt + MS);

    // a new task starts at its full weight and stays near it while always runnable
    assertThat(before[0]).isBetween(990L, 1024L);
    // 32 or 33 period boundaries crossed while blocked: y^32 = 0.5, y^33 = 0.489
    assertThat((double) after[0] / before[0]).isBetween(0.485, 0.505);
  }

  @Test
  void fork_twoConsecutiveForks_doNotShareAnIdleCpu() {
    CfsScheduler cfs = CfsScheduler.withDefaults().era(CfsEra.LINUX_4_8);
    Kernel host = host(4, cfs);
    host.spawn("parent", cpuBound("parent"), 0);
    Task[] kids = new Task[2];
    long[] loadAfterFirst = new long[1];
    at(machine, 5 * MS, () -> {
      kids[0] = host.spawn("a", Program.named("a").work(10 * MS, "a_work").build());
      loadAfterFirst[0] = cfs.runnableLoadAvg(kids[0].cpu());
      kids[1] = host.spawn("b", Program.named("b").work(10 * MS, "b_work").build());
    });
    sim.runUntil(6 * MS);

    // init_entity_runnable_average: the first child weighs its full 1024 on its CPU at once
    assertThat(loadAfterFirst[0]).isEqualTo(1024L);
    Cpu a = kids[0].cpu();
    Cpu b = kids[1].cpu();
    assertThat(a.index()).isNotZero();
    assertThat(b.index()).isNotZero();
    assertThat(b).isNotSameAs(a);
  }

  @Test
  void fork_runqueueOfJustWokenLongSleepers_looksLighterThanOneRunningTask() {
    CfsScheduler cfs = CfsScheduler.withDefaults().era(CfsEra.LINUX_4_8);
    Kernel host = host(4, cfs);
    host.spawn("hog0", cpuBound("hog0"), 0);
    host.spawn("hog2", cpuBound("hog2"), 2);
    host.spawn("hog3", cpuBound("hog3"), 3);
    boolean[] woken = {false};
    Task s1 = host.spawn("s1", runSleepRun(MS, woken), 1);
    Task s2 = host.spawn("s2", runSleepRun(MS, woken), 1);
    Task[] child = new Task[1];
    long[] loads = new long[2];
    at(machine, 1_000 * MS, () -> {
      woken[0] = true;
      host.wakeUpNow(s1, null);
      host.wakeUpNow(s2, null);
    });
    at(machine, 1_000 * MS + 100 * US, () -> {
      loads[0] = cfs.runnableLoadAvg(host.cpu(1));
      loads[1] = cfs.runnableLoadAvg(host.cpu(2));
      child[0] = host.spawn("child", Program.named("c").work(MS, "c_work").build());
    });
    sim.runUntil(1_001 * MS);

    // two tasks blocked for ~975 periods enter with ~0 load; CPUs 0, 2, 3 each run a task whose
    // load is ~1024, so find_idlest_group takes CPU 1 (by weight it would be the heaviest)
    assertThat(loads[0]).isLessThan(100L);
    assertThat(loads[1]).isGreaterThan(900L);
    assertThat(child[0].cpu().index()).isEqualTo(1);
  }

  @Test
  void era30_noPelt_placementByWeight() {
    CfsScheduler cfs = CfsScheduler.withDefaults();
    Kernel host = host(4, cfs);
    host.spawn("hog0", cpuBound("hog0"), 0);
    host.spawn("hog2", cpuBound("hog2"), 2);
    host.spawn("hog3", cpuBound("hog3"), 3);
    boolean[] woken = {false};
    Task s1 = host.spawn("s1", runSleepRun(MS, woken), 1);
    Task s2 = host.spawn("s2", runSleepRun(MS, woken), 1);
    Task[] child = new Task[1];
    at(machine, 1_000 * MS, () -> {
      woken[0] = true;
      host.wakeUpNow(s1, null);
      host.wakeUpNow(s2, null);
    });
    at(machine, 1_000 * MS + 100 * US, () ->
        child[0] = host.spawn("child", Program.named("c").work(MS, "c_work").build()));
    sim.runUntil(1_001 * MS);

    // 3.0 (no PELT before 3.8): CPU 1 carries 2048 of runnable weight, the others 1024
    assertThat(cfs.runnableLoadAvg(host.cpu(1))).isZero();
    assertThat(child[0].cpu().index()).isNotEqualTo(1);
  }
}

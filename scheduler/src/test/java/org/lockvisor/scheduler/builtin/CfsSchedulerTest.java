package org.lockvisor.scheduler.builtin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.lockvisor.scheduler.builtin.SchedTestSupport.MS;
import static org.lockvisor.scheduler.builtin.SchedTestSupport.US;
import static org.lockvisor.scheduler.builtin.SchedTestSupport.at;
import static org.lockvisor.scheduler.builtin.SchedTestSupport.cpuBound;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Ops;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Task;
import org.lockvisor.machine.Vm;
import org.lockvisor.machine.config.HypervisorConfig;
import org.lockvisor.machine.config.KernelConfig;
import org.lockvisor.scheduler.builtin.SchedTestSupport.Run;
import org.lockvisor.scheduler.builtin.SchedTestSupport.RunRecorder;

/**
 * CFS shares a CPU among runnable tasks in slices of (scaled) latency × weight share, preempting
 * at the tick (or exactly, with hrtick); a woken sleeper preempts only with a vruntime lead above
 * the wakeup granularity; wakeups prefer an idle CPU sharing the cache; an idle CPU pulls the
 * longest-waiting movable task.
 */
class CfsSchedulerTest {
  private static final long TICK = MS; // HZ=1000 on the host

  private final Simulation sim = new Simulation(1);
  private final Machine machine = new Machine(sim);
  private final CfsSchedulerFactory factory = new CfsSchedulerFactory();

  private Scheduler2 twoVcpuThreadsOnPcpu0(Map<String, String> hostOptions) {
    CfsScheduler hostCfs = (CfsScheduler) SchedulerContexts.create(factory, hostOptions);
    Kernel host = machine.createHost("host", 8, KernelConfig.zeroCost(TICK), hostCfs);
    Vm a = machine.createVm("vmA", 1, KernelConfig.zeroCost(4 * MS), SchedulerContexts.create(factory, Map.of()),
        HypervisorConfig.zeroCost(), 0);
    Vm b = machine.createVm("vmB", 1, KernelConfig.zeroCost(4 * MS), SchedulerContexts.create(factory, Map.of()),
        HypervisorConfig.zeroCost(), 0);
    a.guest().spawn("burnA", cpuBound("burnA"));
    b.guest().spawn("burnB", cpuBound("burnB"));
    RunRecorder rec = new RunRecorder(machine, host.cpu(0));
    machine.setTrace(rec);
    return new Scheduler2(hostCfs, rec, a.vcpus().get(0), b.vcpus().get(0));
  }

  private record Scheduler2(CfsScheduler cfs, RunRecorder rec, Task vcpuA, Task vcpuB) {}

  /** The runs after start-up (the first two differ by fork placement) and before the cut-off one. */
  private static List<Run> steadyRuns(RunRecorder rec) {
    List<Run> runs = rec.runs();
    return runs.subList(2, runs.size() - 1);
  }

  private static void assertAlternate(List<Run> runs) {
    for (int i = 1; i < runs.size(); i++) {
      assertThat(runs.get(i).task()).as("run %s", i).isNotSameAs(runs.get(i - 1).task());
      assertThat(runs.get(i).start()).as("back-to-back runs").isEqualTo(runs.get(i - 1).end());
    }
  }

  @Test
  void twoCpuBoundVcpuThreads_onePcpuOfEightCpuHost_alternateInTwelveMsSlicesEndedByTheTick() {
    Scheduler2 s = twoVcpuThreadsOnPcpu0(Map.of());
    sim.runUntil(500 * MS);

    // 8 CPUs, log scaling: factor 1 + ilog2(8) = 4 -> latency 24 ms, two equal tasks -> 12 ms;
    // the tick notices delta_exec > ideal at the first tick after 12 ms
    assertThat(s.cfs().latencyNs()).isEqualTo(24 * MS);
    List<Run> runs = steadyRuns(s.rec());
    assertThat(runs).hasSizeGreaterThan(30);
    assertThat(runs).allSatisfy(r -> assertThat(r.length()).isGreaterThan(12 * MS).isLessThanOrEqualTo(12 * MS + TICK));
    assertAlternate(runs);
    // exec time is counted exactly while the thread is current
    machine.syncAccounting();
    assertThat(s.cfs().sumExecRuntime(s.vcpuA()) + s.cfs().sumExecRuntime(s.vcpuB()))
        .isEqualTo(s.rec().onCpu(s.vcpuA(), 0, sim.now()) + s.rec().onCpu(s.vcpuB(), 0, sim.now()) - lastRunTail(s));
    assertThat(Math.abs(s.rec().onCpu(s.vcpuA(), 0, sim.now()) - s.rec().onCpu(s.vcpuB(), 0, sim.now())))
        .isLessThanOrEqualTo(13 * MS);
  }

  /** The run in progress has not been charged by update_curr yet (no tick since its last one). */
  private long lastRunTail(Scheduler2 s) {
    List<Run> runs = s.rec().runs();
    Task current = runs.get(runs.size() - 1).task();
    return sim.now() - s.cfs().execStart(current);
  }

  @Test
  void twoCpuBoundVcpuThreads_hrtick_slicesAreExactlyTwelveMs() {
    Scheduler2 s = twoVcpuThreadsOnPcpu0(Map.of("hrtick", "true"));
    sim.runUntil(500 * MS);

    List<Run> runs = steadyRuns(s.rec());
    assertThat(runs).hasSizeGreaterThan(35);
    assertThat(runs).allSatisfy(r -> assertThat(r.length()).isEqualTo(12 * MS));
    assertAlternate(runs);
  }

  @Test
  void twoCpuBoundVcpuThreads_noScalingAndHrtick_slicesAreThreeMs() {
    Scheduler2 s = twoVcpuThreadsOnPcpu0(Map.of("scaling", "none", "hrtick", "true"));
    sim.runUntil(200 * MS);

    assertThat(s.cfs().latencyNs()).isEqualTo(6 * MS);
    List<Run> runs = steadyRuns(s.rec());
    assertThat(runs).allSatisfy(r -> assertThat(r.length()).isEqualTo(3 * MS));
    assertAlternate(runs);
  }

  @Test
  void tunables_byCpuCountAndScaling_followGetUpdateSysctlFactor() {
    // {cpus, none, log, linear} latency in ms for the 6 ms base
    long[][] expected = {{1, 6, 6, 6}, {2, 6, 12, 12}, {4, 6, 18, 24}, {8, 6, 24, 48}, {64, 6, 24, 48}};
    String[] modes = {"none", "log", "linear"};
    for (long[] row : expected) {
      for (int m = 0; m < modes.length; m++) {
        CfsScheduler cfs = (CfsScheduler) SchedulerContexts.create(factory, Map.of("scaling", modes[m]));
        new Machine(new Simulation(1)).createHost("h", (int) row[0], KernelConfig.zeroCost(TICK), cfs);
        long factor = row[m + 1] / 6;
        assertThat(cfs.latencyNs()).as("%s cpus, %s", row[0], modes[m]).isEqualTo(row[m + 1] * MS);
        assertThat(cfs.minGranularityNs()).isEqualTo(factor * 750 * US);
        assertThat(cfs.wakeupGranularityNs()).isEqualTo(factor * MS);
        assertThat(cfs.nrLatency()).isEqualTo(8);
      }
    }
  }

  /** A hog runs alone on CPU 0 from time 0; a sleeper pinned there is woken at 10.5 ms. */
  private long sleeperStartAfterWakeup(Map<String, String> options) {
    Kernel host = machine.createHost("host", 1, KernelConfig.zeroCost(TICK), SchedulerContexts.create(factory, options));
    host.spawn("hog", cpuBound("hog"), 0);
    long[] started = {-1};
    Task sleeper = host.spawnSleeping("sleeper",
        Program.named("sleeper").run(t -> started[0] = sim.now()).userWork(100 * US, "work").build(), 0);
    at(machine, 10_500 * US, () -> host.wakeUpNow(sleeper, null));
    sim.runUntil(30 * MS);
    return started[0];
  }

  @Test
  void wokenSleeper_leadAboveWakeupGranularity_preemptsTheHogAtOnce() {
    // 1 CPU: latency 6 ms, wakeup granularity 1 ms; sleeper credit latency/2 = 3 ms > 1 ms
    assertThat(sleeperStartAfterWakeup(Map.of())).isEqualTo(10_500 * US);
  }

  @Test
  void wokenSleeper_wakeupGranularityAboveItsCredit_waitsForTheNextTick() {
    // same 3 ms lead, but a 4 ms wakeup granularity: no wakeup preemption; the hog, far beyond
    // its slice, is preempted by check_preempt_tick at 11 ms
    assertThat(sleeperStartAfterWakeup(Map.of("wakeup-granularity", "4ms"))).isEqualTo(11 * MS);
  }

  /**
   * Where a task that last ran on CPU 1 runs after a wakeup at 2 ms, with hogs pinned to {@code
   * busy} from 1 ms on; 4 CPUs in two LLC domains {0,1} {2,3}.
   */
  private int wakePlacement(int pinAfterFirstRun, int... busy) {
    Kernel host = machine.createHost("host", 4, KernelConfig.zeroCost(TICK).withLlcSize(2), SchedulerContexts.create(factory, Map.of()));
    boolean[] woken = {false};
    int[] ranOn = {-1};
    Task w = host.spawn("wakee", Program.named("wakee")
        .work(10 * US, "first_run")
        .op(Ops.sleepUntil(null, t -> woken[0]))
        .run(t -> ranOn[0] = t.cpu().index())
        .build(), 1);
    at(machine, 100 * US, () -> w.pin(pinAfterFirstRun));
    at(machine, MS, () -> {
      for (int cpu : busy) {
        host.spawn("hog" + cpu, cpuBound("hog" + cpu), cpu);
      }
    });
    at(machine, 2 * MS, () -> {
      woken[0] = true;
      host.wakeUpNow(w, null);
    });
    sim.runUntil(100 * MS);
    assertThat(w.isDead()).isTrue();
    return ranOn[0];
  }

  /** The wakee last ran on CPU 1; CPU 0 (the waker's) and CPU 1 run the given numbers of hogs. */
  private int affinePlacement(boolean wakeAffine, int hogsOnWakerCpu, int hogsOnPrevCpu) {
    CfsScheduler cfs = CfsScheduler.withDefaults();
    if (!wakeAffine) {
      cfs.disableWakeAffine(); // on by default, as SD_WAKE_AFFINE in the kernel
    }
    Kernel host = machine.createHost("host", 2, KernelConfig.zeroCost(TICK).withLlcSize(2), cfs);
    boolean[] woken = {false};
    int[] ranOn = {-1};
    Task w = host.spawn("wakee", Program.named("wakee")
        .work(10 * US, "first_run")
        .op(Ops.sleepUntil(null, t -> woken[0]))
        .run(t -> ranOn[0] = t.cpu().index())
        .build(), 1);
    at(machine, 100 * US, () -> w.pin(-1));
    at(machine, MS, () -> {
      for (int i = 0; i < hogsOnWakerCpu; i++) {
        host.spawn("hog0." + i, cpuBound("hog0." + i), 0);
      }
      for (int i = 0; i < hogsOnPrevCpu; i++) {
        host.spawn("hog1." + i, cpuBound("hog1." + i), 1);
      }
    });
    at(machine, 2 * MS, () -> {
      woken[0] = true;
      host.wakeUpNow(w, host.cpu(0));
    });
    sim.runUntil(200 * MS);
    assertThat(w.isDead()).isTrue();
    return ranOn[0];
  }

  @Test
  void wakeAffine_wakerCpuNotBusierThanPrevious_pullsTheWakeeToTheWaker() {
    assertThat(affinePlacement(true, 1, 2)).isEqualTo(0);
  }

  @Test
  void withoutWakeAffine_sameLoads_theWakeeQueuesOnItsPreviousCpu() {
    assertThat(affinePlacement(false, 1, 2)).isEqualTo(1);
  }

  @Test
  void wakeAffine_wakerCpuBusierBeyondImbalancePct_leavesTheWakeeOnItsPreviousCpu() {
    // 100 × (3 + 1) > 112 × 1: not balanced (the sleeping wakee adds nothing to its previous CPU)
    assertThat(affinePlacement(true, 3, 1)).isEqualTo(1);
  }

  @Test
  void wakeup_previousCpuIdle_staysThere() {
    assertThat(wakePlacement(-1)).isEqualTo(1);
  }

  @Test
  void wakeup_previousCpuBusy_goesToIdleCpuSharingTheCache() {
    assertThat(wakePlacement(-1, 1)).isEqualTo(0);
  }

  @Test
  void wakeup_noIdleCpuInTheCacheDomain_queuesOnPreviousCpuDespiteIdleRemoteCpus() {
    assertThat(wakePlacement(-1, 0, 1)).isEqualTo(1);
  }

  @Test
  void wakeup_pinnedTask_goesToItsCpuEvenIfBusy() {
    assertThat(wakePlacement(3, 3)).isEqualTo(3);
  }

  @Test
  void idleBalance_cpuGoingIdle_pullsLongestWaitingUnpinnedTaskOfBusiestQueue() {
    CfsScheduler cfs = (CfsScheduler) SchedulerContexts.create(factory, Map.of());
    Kernel host = machine.createHost("host", 2, KernelConfig.zeroCost(TICK), cfs);
    Task pinned = host.spawn("pinned", cpuBound("pinned"), 0);
    Task b = host.spawn("b", cpuBound("b"), 0);
    Task c = host.spawn("c", cpuBound("c"), 0);
    b.pin(-1);
    c.pin(-1);
    host.spawn("short", Program.named("short").userWork(20 * MS, "work").build(), 1);
    RunRecorder rec0 = new RunRecorder(machine, host.cpu(0));
    RunRecorder rec1 = new RunRecorder(machine, host.cpu(1));
    machine.setTrace(new org.lockvisor.machine.MachineTrace() {
      @Override
      public void onSwitch(org.lockvisor.machine.Cpu cpu, Task prev, Task next) {
        rec0.onSwitch(cpu, prev, next);
        rec1.onSwitch(cpu, prev, next);
      }
    });
    Task[] expected = {null};
    at(machine, 20 * MS, () -> {
      // the queued movable task on CPU 0 that was descheduled longest ago
      Task cur = host.cpu(0).current();
      long bestEnd = Long.MAX_VALUE;
      for (Task t : List.of(b, c)) {
        if (t == cur) {
          continue;
        }
        long lastEnd = 0;
        for (Run r : rec0.runs()) {
          if (r.task() == t) {
            lastEnd = r.end();
          }
        }
        if (lastEnd < bestEnd) {
          bestEnd = lastEnd;
          expected[0] = t;
        }
      }
    });
    sim.runUntil(100 * MS);

    assertThat(cfs.idlePulls(host.cpu(1))).isEqualTo(1);
    List<Run> onCpu1 = rec1.runs();
    assertThat(onCpu1.get(1).task()).isSameAs(expected[0]);
    assertThat(onCpu1.get(1).start()).isEqualTo(20 * MS);
    assertThat(onCpu1).noneMatch(r -> r.task() == pinned);
  }

  @Test
  void factory_unknownOption_isRejectedListingTheKnownOnes() {
    assertThatThrownBy(() -> SchedulerContexts.create(factory, Map.of("latncy", "6ms")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("[latncy]")
        .hasMessageContaining("latency, min-granularity, wakeup-granularity, scaling, hrtick");
  }

  @Test
  void factory_badScaling_isRejectedListingTheAllowedValues() {
    assertThatThrownBy(() -> SchedulerContexts.create(factory, Map.of("scaling", "quadratic")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("[quadratic]")
        .hasMessageContaining("[none, log, linear]");
  }

  @Test
  void factory_durationsWithUnits_areParsed() {
    CfsScheduler cfs = (CfsScheduler) SchedulerContexts.create(factory, 
        Map.of("latency", "12ms", "min-granularity", "1500us", "wakeup-granularity", "2000000", "scaling", "none"));
    new Machine(new Simulation(1)).createHost("h", 4, KernelConfig.zeroCost(TICK), cfs);
    assertThat(cfs.latencyNs()).isEqualTo(12 * MS);
    assertThat(cfs.minGranularityNs()).isEqualTo(1500 * US);
    assertThat(cfs.wakeupGranularityNs()).isEqualTo(2 * MS);
    assertThat(factory.name()).isEqualTo("cfs");
    assertThat(factory.kind()).isEqualTo("scheduler");
  }
}

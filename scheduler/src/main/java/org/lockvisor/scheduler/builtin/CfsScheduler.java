package org.lockvisor.scheduler.builtin;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;

import org.lockvisor.core.sim.Simulation;
import org.lockvisor.machine.Cpu;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.SchedStats;
import org.lockvisor.machine.Scheduler;
import org.lockvisor.machine.Task;

/**
 * The Completely Fair Scheduler as of Linux 2.6.38–6.5 (before EEVDF), for one task group per
 * CPU (no cgroups, no SMT/NUMA domains), after kernel/sched/fair.c:
 *
 * <ul>
 *   <li>Per-CPU runqueue ordered by vruntime; the current task is outside the queue
 *       ({@code cfs_rq->curr}). Ties go behind earlier arrivals, like the rbtree insert
 *       ({@code __enqueue_entity}: equal keys go right).
 *   <li>{@code update_curr}: {@code vruntime += delta_exec * NICE_0_LOAD / weight}, with exec
 *       time measured on the simulation clock only while the task is current (from pick to
 *       put/sleep, a context switch included, as {@code set_next_entity} starts the clock);
 *       {@code update_min_vruntime} keeps the monotonic floor.
 *   <li>Tunables ({@code sched_init_granularity}/{@code update_sysctl}): latency 6 ms, min
 *       granularity 0.75 ms, wakeup granularity 1 ms, each times the factor of
 *       {@code get_update_sysctl_factor}: 1 (none), {@code 1 + ilog2(min(ncpus, 8))} (log, the
 *       default), or {@code min(ncpus, 8)} (linear); {@code sched_nr_latency = ceil(latency /
 *       min_granularity)} (8 with the defaults).
 *   <li>{@code sched_slice}: period ({@code __sched_period}: latency, or nr_running × min
 *       granularity beyond sched_nr_latency) × weight / runqueue load.
 *   <li>{@code place_entity}: a new task starts at {@code max(vruntime, min_vruntime +
 *       vslice)} (START_DEBIT); a woken sleeper at {@code max(vruntime, min_vruntime -
 *       latency/2)} (GENTLE_FAIR_SLEEPERS). A task that changes runqueue keeps its vruntime
 *       relative to min_vruntime ({@code migrate_task_rq_fair}).
 *   <li>Preemption: the tick runs {@code check_preempt_tick} (ran longer than the ideal slice,
 *       or, past min granularity, more than a slice of vruntime ahead of the leftmost task);
 *       optionally ({@code hrtick}, sched_feat HRTICK, off by default in Linux) a precise
 *       timer at slice expiry preempts exactly there. A wakeup preempts when {@code
 *       curr.vruntime - woken.vruntime} exceeds the wakeup granularity scaled by the woken
 *       task's weight ({@code check_preempt_wakeup}/{@code wakeup_preempt_entity}).
 *   <li>Scheduling domains ({@link SchedDomains}) from the kernel's {@link
 *       org.lockvisor.machine.CpuTopology}: SMT, MC (the LLC), DIE and the whole machine, with
 *       the era's parameters (3.0–3.15 {@code SD_SIBLING_INIT}/{@code SD_MC_INIT}/{@code
 *       SD_CPU_INIT} of include/linux/topology.h; 4.8 {@code sd_init} of kernel/sched/core.c).
 *   <li>Wakeup and fork placement, {@code select_task_rq_fair} with {@code SD_BALANCE_WAKE} off
 *       (as in both eras): {@code wake_wide} (era 4.8), {@code wake_affine} (on by default as the
 *       kernel has it; {@link #disableWakeAffine} switches it off), {@code select_idle_sibling}
 *       bounded by the LLC domain, and {@code find_idlest_group}/{@code find_idlest_cpu} for a
 *       new task — see {@link CfsWakePlacement}.
 *   <li>Load balancing: periodic from the tick ({@code rebalance_domains}/{@code
 *       load_balance}), active ({@code active_load_balance_cpu_stop}), nohz idle ({@code
 *       nohz_idle_balance}) and newidle ({@code idle_balance}, gated by {@code avg_idle} — updated
 *       at each wakeup of an idle CPU as in {@code ttwu_do_wakeup} — and in era 4.8 by {@code
 *       rd->overload}) — see {@link CfsLoadBalancer}.
 * </ul>
 *
 * <p>Load: era 3.0 (no PELT before 3.8) the runqueue's runnable weight at that instant; era 4.8
 * PELT as Linux 4.8 kernel/sched/fair.c has it ({@link Pelt}), without blocked load, {@code
 * util_avg} or capacity scaling; see {@link CfsRq} for who reads which value. Sync wakeups are
 * treated as plain ones.
 *
 * <p>{@code yield_to} ({@code yield_to_task_fair}, used by KVM's directed yield) sets the
 * target as the next buddy of its runqueue and the yielding task as the skip buddy of its own;
 * {@code pick_next_entity} prefers the next buddy, and skips the skip buddy for the second
 * entity, as long as that is not more than a wakeup granularity of vruntime unfair to the
 * leftmost ({@code wakeup_preempt_entity < 1}).
 *
 * <p>Left out: the last buddy (wakeup preemption), cgroups, NUMA balancing. The task clock includes steal
 * time (a guest charges the time its vCPU was preempted to its current task, as without
 * CONFIG_PARAVIRT_TIME_ACCOUNTING) unless the kernel enables steal-time accounting
 * ({@code Kernel.setStealTimeAccounting}).
 *
 * <p>Per-event work allocates nothing: runqueues are indexed binary heaps of per-task entities
 * allocated once per task. The code follows fair.c's seams: this class holds the scheduling-class
 * hooks ({@code enqueue_task_fair}, {@code pick_next_task_fair}, {@code update_curr}, {@code
 * sched_slice}, the tick, {@code yield_to}); {@link CfsRq} the runqueue and its timeline; {@link
 * CfsEntity} the per-task entity; {@link Pelt} the load average; {@link CfsRunqueues} the state
 * all parts share and the runqueue operations they apply; {@link CfsHrtick} the hrtick timer; {@link CfsWakePlacement} {@code select_task_rq_fair}; {@link CfsLoadBalancer} periodic,
 * nohz, newidle and active balancing. What stays is above 30 methods on purpose: the twelve
 * {@link Scheduler} hooks, the public configuration (era, wake_affine, balancing) and the
 * read-outs tests and reports use (tunables, min_vruntime, exec clocks, PELT averages, yields,
 * pulls) are the plugin's one public surface, and the hooks share {@code update_curr}, {@code
 * sched_slice} and the buddies, which belong to no other seam.
 */
public final class CfsScheduler implements Scheduler {
  /** {@code NICE_0_LOAD}: the weight of a nice-0 task. */
  public static final int NICE_0_LOAD = CfsRunqueues.NICE_0_LOAD;

  /** {@code enum sched_tunable_scaling}. */
  public enum Scaling {
    NONE, LOG, LINEAR;

    /** get_update_sysctl_factor for {@code cpus} online CPUs. */
    public int factor(int cpus) {
      int n = Math.min(cpus, 8);
      return switch (this) {
        case NONE -> 1;
        case LOG -> 1 + (31 - Integer.numberOfLeadingZeros(n));
        case LINEAR -> n;
      };
    }
  }

  private final long baseLatencyNs;
  private final long baseMinGranularityNs;
  private final long baseWakeupGranularityNs;
  private final Scaling scaling;
  private final boolean hrtick;
  private boolean wakeAffine = true;
  private boolean balancing = true;
  private CfsEra era = CfsEra.LINUX_3_0;

  private long latencyNs;
  private long minGranularityNs;
  private long wakeupGranularityNs;
  private int nrLatency;

  private Kernel kernel;
  private Simulation sim;
  private CfsRq[] rqs;
  private CfsWakePlacement placement;
  private CfsLoadBalancer balancer;
  private CfsHrtick hrtickTimer;
  private CfsRunqueues runqueues;
  private long yields;

  /**
   * @param latencyNs base sysctl_sched_latency before scaling (kernel default 6 ms)
   * @param minGranularityNs base sysctl_sched_min_granularity (0.75 ms)
   * @param wakeupGranularityNs base sysctl_sched_wakeup_granularity (1 ms)
   * @param scaling how the base values grow with the number of CPUs (kernel default LOG)
   * @param hrtick preempt at the exact slice expiry instead of at the next tick
   */
  public CfsScheduler(long latencyNs, long minGranularityNs, long wakeupGranularityNs, Scaling scaling,
      boolean hrtick) {
    checkArgument(latencyNs > 0, "latency must be positive: %s", latencyNs);
    checkArgument(minGranularityNs > 0, "min granularity must be positive: %s", minGranularityNs);
    checkArgument(wakeupGranularityNs >= 0, "wakeup granularity must not be negative: %s", wakeupGranularityNs);
    checkArgument(scaling != null, "scaling must be set");
    this.baseLatencyNs = latencyNs;
    this.baseMinGranularityNs = minGranularityNs;
    this.baseWakeupGranularityNs = wakeupGranularityNs;
    this.scaling = scaling;
    this.hrtick = hrtick;
  }

  /** The kernel defaults: 6 ms / 0.75 ms / 1 ms, log scaling, no hrtick. */
  public static CfsScheduler withDefaults() {
    return new CfsScheduler(CfsSchedulerFactory.DEFAULT_LATENCY_NS, CfsSchedulerFactory.DEFAULT_MIN_GRANULARITY_NS,
        CfsSchedulerFactory.DEFAULT_WAKEUP_GRANULARITY_NS, Scaling.LOG, false);
  }

  /**
   * {@code wake_affine} is on by default, as in the kernel ({@code SD_WAKE_AFFINE} on every
   * domain); this keeps it for callers of the earlier opt-in API. Call before the kernel starts.
   */
  public CfsScheduler enableWakeAffine() {
    checkState(kernel == null, "set wake_affine before the kernel starts");
    this.wakeAffine = true;
    return this;
  }

  /**
   * Switches {@code wake_affine} off (a what-if, like clearing {@code SD_WAKE_AFFINE} on every
   * domain): a waking task then starts from its previous CPU. Call before the kernel is created.
   */
  public CfsScheduler disableWakeAffine() {
    checkState(kernel == null, "set wake_affine before the kernel starts");
    this.wakeAffine = false;
    return this;
  }

  public boolean wakeAffine() {
    return wakeAffine;
  }

  /**
   * Switches off periodic, nohz and active balancing and the newidle gates, leaving the model's
   * earlier newidle pull of the longest-waiting task (tests of other mechanisms that want fixed
   * placement). Call before the kernel is created.
   */
  public CfsScheduler disableBalancing() {
    checkState(kernel == null, "set balancing before the kernel starts");
    this.balancing = false;
    return this;
  }

  public boolean balancing() {
    return balancing;
  }

  /** Selects the kernel generation (default {@link CfsEra#LINUX_3_0}). Call before the kernel is created. */
  public CfsScheduler era(CfsEra era) {
    checkState(kernel == null, "set the era before the kernel starts");
    checkArgument(era != null, "era must be set");
    this.era = era;
    return this;
  }

  public CfsEra era() {
    return era;
  }

  /** The domain levels as {@code NAME/span}, lowest first (e.g. {@code "SMT/2 MC/8 NUMA/16"}). */
  public String domainsDescription() {
    return domains().toString();
  }

  @Override
  public void init(Kernel k) {
    checkState(kernel == null, "a CfsScheduler serves one kernel; create one per kernel");
    this.kernel = k;
    this.sim = k.machine().sim();
    int factor = scaling.factor(k.cpuCount());
    latencyNs = baseLatencyNs * factor;
    minGranularityNs = baseMinGranularityNs * factor;
    wakeupGranularityNs = baseWakeupGranularityNs * factor;
    nrLatency = (int) Math.max(1, (latencyNs + minGranularityNs - 1) / minGranularityNs);
    // PELT load tracking (3.8+; era 4.8): placement and balancing read runnable_load_avg
    boolean pelt = era == CfsEra.LINUX_4_8;
    rqs = new CfsRq[k.cpuCount()];
    for (int i = 0; i < rqs.length; i++) {
      rqs[i] = new CfsRq(i, pelt);
      rqs[i].avg.last = sim.now();
      k.cpu(i).rqData = rqs[i];
    }
    runqueues = new CfsRunqueues(k, rqs, era, latencyNs, minGranularityNs, wakeupGranularityNs, nrLatency);
    hrtickTimer = new CfsHrtick(runqueues, k, rqs, hrtick);
    placement = new CfsWakePlacement(runqueues, k, rqs, era, pelt, wakeAffine, balancing);
    balancer = new CfsLoadBalancer(runqueues, hrtickTimer, k, rqs, era, pelt);
  }

  /** Effective sysctl_sched_latency (after scaling). */
  public long latencyNs() {
    return latencyNs;
  }

  /** Effective sysctl_sched_min_granularity. */
  public long minGranularityNs() {
    return minGranularityNs;
  }

  /** Effective sysctl_sched_wakeup_granularity. */
  public long wakeupGranularityNs() {
    return wakeupGranularityNs;
  }

  /** sched_nr_latency. */
  public int nrLatency() {
    return nrLatency;
  }

  /** The runqueue's min_vruntime of {@code cpu}. */
  public long minVruntime(Cpu cpu) {
    return rqs[cpu.index()].minVruntime;
  }

  // ---------------------------------------------------------------------------------------
  // Scheduler SPI.

  @Override
  public void enqueue(Cpu cpu, Task task, boolean wakeup) {
    CfsRq rq = rqs[cpu.index()];
    CfsEntity se = entity(task);
    updateCurr(rq);
    if (rq.idleStamp >= 0) {
      // ttwu_do_wakeup: avg_idle tracks how long this CPU stays idle
      long delta = sim.now() - rq.idleStamp;
      long max = 2 * CfsLoadBalancer.MIGRATION_COST_NS;
      rq.avgIdle = delta > max ? max : rq.avgIdle + (delta - rq.avgIdle) / 8;
      rq.idleStamp = -1;
    }
    if (se.rqIndex >= 0 && se.rqIndex != rq.index) {
      // migrate_task_rq_fair: vruntime stays relative to the runqueue's floor
      se.vruntime = se.vruntime - rqs[se.rqIndex].minVruntime + rq.minVruntime;
    }
    if (!wakeup && !se.placed) {
      // place_entity(initial) with START_DEBIT: a new task pays one virtual slice first
      long vslice = calcDeltaFair(slice(rq, task.weight, false), task.weight);
      se.vruntime = Math.max(se.vruntime, rq.minVruntime + vslice);
    } else if (wakeup) {
      // place_entity(!initial), GENTLE_FAIR_SLEEPERS: at most half a latency of sleeper credit
      se.vruntime = Math.max(se.vruntime, rq.minVruntime - latencyNs / 2);
    }
    se.placed = true;
    rq.peltEnqueue(se, sim.now()); // enqueue_entity_load_avg before account_entity_enqueue
    insert(rq, se);
    if (hrtick && rq.curr != null && rq.nrRunning() < nrLatency) {
      hrtickTimer.arm(rq); // hrtick_update: the slice of curr shrank
    }
    lengthChanged(rq);
  }

  @Override
  public void dequeue(Cpu cpu, Task task) {
    CfsRq rq = rqs[cpu.index()];
    CfsEntity se = entity(task);
    checkState(se.heapIndex >= 0 && se.rqIndex == rq.index, "%s is not queued on %s", task, cpu);
    updateCurr(rq);
    rq.peltDequeue(se, sim.now());
    rq.remove(se);
    rq.updateMinVruntime();
    lengthChanged(rq);
  }

  @Override
  public void putPrev(Cpu cpu, Task prev) {
    CfsRq rq = rqs[cpu.index()];
    checkState(rq.curr != null && rq.curr.task == prev, "%s put back on %s but current is %s", prev, cpu, rq.curr);
    updateCurr(rq);
    rq.curr = null;
    hrtickTimer.cancel(rq);
    CfsEntity se = entity(prev);
    insert(rq, se);
    rq.lastPut = se;
  }

  @Override
  public Task pickNext(Cpu cpu) {
    CfsRq rq = rqs[cpu.index()];
    if (rq.curr != null) {
      // the current task went to sleep or exited (dequeue_entity of curr, clear_buddies)
      if (rq.skip == rq.curr) {
        rq.skip = null;
      }
      if (rq.next == rq.curr) {
        rq.next = null;
      }
      updateCurr(rq);
      rq.peltDequeue(rq.curr, sim.now());
      rq.curr = null;
      rq.updateMinVruntime();
    }
    hrtickTimer.cancel(rq);
    if (rq.activeBalanceTarget >= 0) {
      balancer.activeBalance(rq);
    }
    if (rq.size == 0) {
      lengthChanged(rq);
      return null;
    }
    CfsEntity left = rq.heap[0];
    CfsEntity se = left;
    if (rq.skip == se) {
      CfsEntity second = rq.secondLeftmost();
      if (second != null && wakeupPreemptEntity(second, left) < 1) {
        se = second;
      }
    }
    if (rq.next != null && wakeupPreemptEntity(rq.next, left) < 1) {
      se = rq.next;
    }
    rq.remove(se); // clear_buddies(cfs_rq, se)
    setNext(rq, se);
    lengthChanged(rq);
    return se.task;
  }

  /** select_task_rq_fair: see {@link CfsWakePlacement}. */
  @Override
  public Cpu selectCpu(Task task, Cpu wakerCpu) {
    return placement.selectCpu(task, wakerCpu);
  }

  @Override
  public void tick(Cpu cpu, Task current) {
    CfsRq rq = rqs[cpu.index()];
    if (rq.curr == null || rq.curr.task != current) {
      return;
    }
    updateCurr(rq);
    if (rq.pelt) {
      // entity_tick -> update_load_avg(curr, 1): the running entity and its cfs_rq
      long now = sim.now();
      rq.curr.avg.update(now, rq.curr.task.weight);
      rq.avg.update(now, rq.load());
    }
    if (rq.nrRunning() > 1) {
      checkPreemptTick(cpu, rq);
    }
    if (balancing) {
      balancer.tick(rq, cpu);
    }
  }

  @Override
  public void switchedIn(Cpu cpu, Task task) {
    CfsRq rq = rqs[cpu.index()];
    if (task == cpu.idleTask()) {
      checkState(rq.curr == null, "%s idles with current %s", cpu, rq.curr);
      return;
    }
    checkState(rq.curr != null && rq.curr.task == task, "%s switched to %s, picked %s", cpu, task, rq.curr);
    rq.curr.execStart = sim.now();
    rq.curr.execStartSteal = cpu.stealClock();
  }

  @Override
  public boolean yieldTo(Cpu cpu, Task current, Task target) {
    CfsEntity se = entity(target);
    if (se.heapIndex < 0) {
      return false; // !se->on_rq: running, or not queued
    }
    rqs[se.rqIndex].next = se; // set_next_buddy
    CfsRq rq = rqs[cpu.index()];
    // yield_task_fair: with another task to run, the yielder becomes the skip buddy
    if (rq.nrRunning() > 1 && rq.curr != null && rq.curr.task == current) {
      updateCurr(rq);
      if (rq.next == rq.curr) {
        rq.next = null;
      }
      rq.skip = rq.curr;
    }
    yields++;
    return true;
  }

  /** Successful {@code yield_to} calls (directed yields) so far. */
  public long yields() {
    return yields;
  }

  @Override
  public int runnable(Cpu cpu) {
    return rqs[cpu.index()].size;
  }

  /** idle_balance, or without balancing the model's earlier pull: see {@link CfsLoadBalancer}. */
  @Override
  public Task balanceIdle(Cpu cpu) {
    CfsRq dst = rqs[cpu.index()];
    if (!balancing) {
      return balancer.legacyIdlePull(cpu, dst);
    }
    return balancer.idleBalance(dst) ? pickNext(cpu) : null;
  }

  /** Tasks pulled to {@code cpu} by balancing so far. */
  public long idlePulls(Cpu cpu) {
    return rqs[cpu.index()].migrationsIn;
  }

  private void checkPreemptTick(Cpu cpu, CfsRq rq) {
    CfsEntity se = rq.curr;
    long ideal = slice(rq, se.task.weight, true);
    long deltaExec = se.sumExecRuntime - se.prevSumExecRuntime;
    if (deltaExec > ideal) {
      cpu.reschedule();
      return;
    }
    if (deltaExec < minGranularityNs || rq.size == 0) {
      return;
    }
    long delta = se.vruntime - rq.heap[0].vruntime;
    if (delta > ideal) {
      cpu.reschedule();
    }
  }

  /** wakeup_preempt_entity(curr, se): -1 not ahead, 0 within the granularity, 1 beyond it. */
  private int wakeupPreemptEntity(CfsEntity candidate, CfsEntity left) {
    long vdiff = candidate.vruntime - left.vruntime;
    if (vdiff <= 0) {
      return -1;
    }
    return vdiff > calcDeltaFair(wakeupGranularityNs, left.task.weight) ? 1 : 0;
  }

  /** {@code runnable_load_avg} of {@code cpu}'s runqueue as last updated (era 4.8; 0 otherwise). */
  public long runnableLoadAvg(Cpu cpu) {
    return rqs[cpu.index()].avg.avg;
  }

  /** The task's {@code se.sum_exec_runtime} (0 before this scheduler first queued it). */
  public long sumExecRuntime(Task t) {
    return t.schedData instanceof CfsEntity e ? e.sumExecRuntime : 0;
  }

  /** When the task's exec clock last started ({@code se.exec_start}; 0 before it first ran). */
  public long execStart(Task t) {
    return t.schedData instanceof CfsEntity e ? e.execStart : 0;
  }

  /** The task's PELT {@code load_avg} as last updated (era 4.8; 0 before it was first enqueued or otherwise). */
  public long loadAvg(Task t) {
    return t.schedData instanceof CfsEntity e ? e.avg.avg : 0;
  }

  // The runqueue operations every CFS part applies live in CfsRunqueues; these keep the hooks' code as fair.c reads.

  /** The scheduling domains, built from the kernel's topology at first use. */
  SchedDomains domains() {
    return runqueues.domains();
  }

  @Override
  public boolean wakeupPreempt(Cpu cpu, Task current, Task woken) {
    return runqueues.wakeupPreempt(cpu, current, woken);
  }

  private void lengthChanged(CfsRq rq) {
    runqueues.lengthChanged(rq);
  }

  private void insert(CfsRq rq, CfsEntity se) {
    runqueues.insert(rq, se);
  }

  /** set_next_entity, and the hrtick timer armed for the new current entity. */
  private void setNext(CfsRq rq, CfsEntity se) {
    runqueues.setNext(rq, se);
    hrtickTimer.picked(rq);
  }

  private void updateCurr(CfsRq rq) {
    runqueues.updateCurr(rq);
  }

  private long slice(CfsRq rq, int weight, boolean onRq) {
    return runqueues.slice(rq, weight, onRq);
  }

  private static long calcDeltaFair(long delta, int weight) {
    return CfsRunqueues.calcDeltaFair(delta, weight);
  }

  private CfsEntity entity(Task t) {
    return runqueues.entity(t);
  }
}

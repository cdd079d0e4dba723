package org.lockvisor.scheduler.builtin;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;

import java.util.Arrays;
import org.lockvisor.core.sim.EventHandler;
import org.lockvisor.core.sim.EventQueue;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.machine.Cpu;
import org.lockvisor.machine.Kernel;
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
 *   <li>Wakeup placement, {@code select_task_rq_fair} with {@code SD_BALANCE_WAKE} off (as in
 *       both eras): {@code record_wakee}/{@code wake_wide} (3.12+, era 4.8 only), then {@code
 *       wake_affine} on the lowest domain spanning the waker's and the wakee's previous CPU
 *       (on by default as the kernel has it; {@link #disableWakeAffine} switches it off), then {@code
 *       select_idle_sibling} bounded by the LLC domain ({@code sd_llc}): 3.0 takes the first idle
 *       CPU of the LLC in CPU order; 3.10–4.8 take a wholly idle group (core) of the LLC, then an
 *       idle SMT sibling, else the target. Pinning wins.
 *   <li>Fork placement ({@code SD_BALANCE_FORK}): {@code find_idlest_group}/{@code
 *       find_idlest_cpu} from the highest domain down, staying local unless a group is lighter by
 *       half the imbalance percentage. ({@code SD_BALANCE_EXEC} is the same path; no workload
 *       execs.)
 *   <li>Periodic balancing from the tick ({@code trigger_load_balance}/{@code
 *       rebalance_domains}): per domain, every {@code balance_interval} (times {@code
 *       busy_factor} when busy), {@code load_balance}: {@code should_we_balance} (the first idle
 *       CPU of the local group, else its first CPU), {@code find_busiest_group} (overloaded
 *       groups first, {@code imbalance_pct}, {@code calculate_imbalance} with {@code
 *       fix_small_imbalance}), {@code find_busiest_queue}, {@code detach_tasks} (least recently
 *       run first, skipping the running, pinned and cache-hot tasks — {@code task_hot}: ran
 *       within {@code sysctl_sched_migration_cost} 0.5 ms — unless balancing failed more than
 *       {@code cache_nice_tries} times; at most half a task's load over the imbalance), with
 *       {@code balance_interval} doubling while balanced and {@code nr_balance_failed}.
 *   <li>Active balance: after more than {@code cache_nice_tries + 2} failures, the busiest
 *       CPU's stopper pushes its running task to the idle CPU ({@code
 *       active_load_balance_cpu_stop}).
 *   <li>Nohz idle balancing ({@code nohz_kick_needed}/{@code nohz_idle_balance}): a busy CPU
 *       with two or more tasks kicks the first tick-stopped idle CPU, which balances on behalf of
 *       every idle CPU whose balance is due.
 *   <li>Newidle balancing ({@code idle_balance}): a CPU going idle balances its domains bottom
 *       up with {@code CPU_NEWLY_IDLE} unless its {@code avg_idle} (updated at each wakeup of an
 *       idle CPU as in {@code ttwu_do_wakeup}, clamped at twice the migration cost) is below
 *       {@code sysctl_sched_migration_cost} or, in era 4.8 (3.16+, 4486edd12b5a), the root domain
 *       is not overloaded ({@code rd->overload}: some runqueue had two tasks since the last
 *       top-level balance).
 * </ul>
 *
 * <p>Load: era 3.0 (no PELT before 3.8) the runqueue's runnable weight at that instant, standing
 * in for {@code cpu_load[idx]}; era 4.8 PELT as Linux 4.8 kernel/sched/fair.c has it ({@link
 * Pelt}: {@code __update_load_avg} with the kernel's decay tables; {@code
 * init_entity_runnable_average}: a new task starts at its full weight; {@code
 * enqueue_entity_load_avg}/{@code dequeue_entity_load_avg}: a task decays over its blocked time
 * and its load joins or leaves the runqueue's {@code runnable_load_avg}; {@code entity_tick}
 * updates the running task and its runqueue). {@code find_idlest_group}/{@code find_idlest_cpu}
 * ({@code forkexec_idx} 0), {@code wake_affine} ({@code wake_idx} 0 and the wakee's {@code
 * se.avg.load_avg}) and {@code load_balance} ({@code weighted_cpuload}, {@code task_h_load}) read
 * the values as last updated. Blocked load is not counted ({@code weighted_cpuload} is {@code
 * runnable_load_avg} in 4.8); left out are {@code util_avg}, frequency/capacity scaling and the
 * {@code cpu_load[]} history of {@code busy_idx}/{@code idle_idx}. Group capacity is one task
 * per CPU, one per core for SMT groups ({@code smt_gain} 1178 over two threads rounds to 1). Sync wakeups are
 * treated as plain ones, and the cost of balancing itself ({@code max_newidle_lb_cost}) is
 * not charged.
 *
 * <p>{@code yield_to} ({@code yield_to_task_fair}, used by KVM's directed yield) sets the
 * target as the next buddy of its runqueue and the yielding task as the skip buddy of its own;
 * {@code pick_next_entity} prefers the next buddy, and skips the skip buddy for the second
 * entity, as long as that is not more than a wakeup granularity of vruntime unfair to the
 * leftmost ({@code wakeup_preempt_entity < 1}). The last buddy (wakeup preemption) is left out.
 *
 * <p>Left out: the last buddy, cgroups, NUMA balancing. The task clock includes steal
 * time (a guest charges the time its vCPU was preempted to its current task, as without
 * CONFIG_PARAVIRT_TIME_ACCOUNTING) unless the kernel enables steal-time accounting
 * ({@code Kernel.setStealTimeAccounting}).
 *
 * <p>Per-event work allocates nothing: runqueues are indexed binary heaps of per-task entities
 * allocated once per task.
 */
public final class CfsScheduler implements Scheduler, EventHandler {
  private long yields;
  /** {@code NICE_0_LOAD}: the weight of a nice-0 task. */
  public static final int NICE_0_LOAD = 1024;
  /** hrtick_start: the shortest timer the kernel arms. */
  static final long HRTICK_MIN_NS = 10_000;

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

  /** The kernel generation whose domain parameters and balancing gates apply. */
  public enum Era {
    /** Linux 3.0–3.15 (the x86 seeds' hosts): SD_*_INIT domains, no wake_wide, no overload gate. */
    LINUX_3_0,
    /** Linux 4.8 (R3's guest): sd_init domains, wake_wide, newidle gated by rd->overload. */
    LINUX_4_8
  }

  /** record_wakee halves the flips once a second (HZ jiffies). */
  private static final long WAKEE_FLIP_DECAY_NS = 1_000_000_000L;
  /** sysctl_sched_migration_cost: task_hot threshold and the avg_idle gate of idle_balance. */
  static final long MIGRATION_COST_NS = 500_000L;
  /** sysctl_sched_nr_migrate: most tasks one load_balance pass looks at. */
  private static final int NR_MIGRATE = 32;
  private static final int CPU_NOT_IDLE = 0;
  private static final int CPU_IDLE = 1;
  private static final int CPU_NEWLY_IDLE = 2;

  private final long baseLatencyNs;
  private final long baseMinGranularityNs;
  private final long baseWakeupGranularityNs;
  private final Scaling scaling;
  private final boolean hrtick;
  private boolean wakeAffine = true;
  private boolean balancing = true;
  private Era era = Era.LINUX_3_0;
  /** PELT load tracking (3.8+; era 4.8): placement and balancing read runnable_load_avg. */
  private boolean pelt;
  private SchedDomains domains;
  private org.lockvisor.machine.SchedStats stats;
  /** rd->overload (4.8): some runqueue had two or more tasks since the last top-level balance. */
  private boolean overload;
  private long nohzNextBalance;

  private long latencyNs;
  private long minGranularityNs;
  private long wakeupGranularityNs;
  private int nrLatency;

  private Kernel kernel;
  private Simulation sim;
  private Rq[] rqs;
  private long enqueueSeq;

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
   * {@code wake_affine} is on by default, as in the kernel (the {@code SD_WAKE_AFFINE} flag of
   * every domain); this keeps it for callers of the earlier opt-in API. Call before the kernel is
   * created.
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

  /** Selects the kernel generation (default {@link Era#LINUX_3_0}). Call before the kernel is created. */
  public CfsScheduler era(Era era) {
    checkState(kernel == null, "set the era before the kernel starts");
    checkArgument(era != null, "era must be set");
    this.era = era;
    return this;
  }

  public Era era() {
    return era;
  }

  /** The scheduling domains, built from the kernel's topology at first use. */
  SchedDomains domains() {
    if (domains == null) {
      domains = new SchedDomains(kernel.topology(), kernel.cpuCount(), era);
      for (Rq rq : rqs) {
        rq.lastBalance = new long[domains.count()];
        rq.balanceInterval = new long[domains.count()];
        rq.nrBalanceFailed = new int[domains.count()];
        for (int l = 0; l < domains.count(); l++) {
          rq.balanceInterval[l] = domains.level(l).minIntervalMs();
        }
      }
    }
    return domains;
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
    rqs = new Rq[k.cpuCount()];
    for (int i = 0; i < rqs.length; i++) {
      rqs[i] = new Rq(i);
      k.cpu(i).rqData = rqs[i];
    }
    stats = k.schedStats();
    stats.ensureCpus(k.cpuCount());
    pelt = era == Era.LINUX_4_8;
    for (Rq rq : rqs) {
      rq.avg.last = sim.now();
    }
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
    Rq rq = rqs[cpu.index()];
    Entity se = entity(task);
    updateCurr(rq);
    if (rq.idleStamp >= 0) {
      // ttwu_do_wakeup: avg_idle tracks how long this CPU stays idle
      long delta = sim.now() - rq.idleStamp;
      long max = 2 * MIGRATION_COST_NS;
      rq.avgIdle = delta > max ? max : rq.avgIdle + (delta - rq.avgIdle) / 8;
      rq.idleStamp = -1;
    }
    if (se.rqIndex >= 0 && se.rqIndex != rq.index) {
      // migrate_task_rq_fair: vruntime stays relative to the runqueue's floor
      task.vruntime = task.vruntime - rqs[se.rqIndex].minVruntime + rq.minVruntime;
    }
    if (!wakeup && !se.placed) {
      // place_entity(initial) with START_DEBIT: a new task pays one virtual slice first
      long vslice = calcDeltaFair(slice(rq, task.weight, false), task.weight);
      task.vruntime = Math.max(task.vruntime, rq.minVruntime + vslice);
    } else if (wakeup) {
      // place_entity(!initial), GENTLE_FAIR_SLEEPERS: at most half a latency of sleeper credit
      task.vruntime = Math.max(task.vruntime, rq.minVruntime - latencyNs / 2);
    }
    se.placed = true;
    peltEnqueue(rq, se); // enqueue_entity_load_avg before account_entity_enqueue
    insert(rq, se);
    if (hrtick && rq.curr != null && nrRunning(rq) < nrLatency) {
      armHrtick(rq); // hrtick_update: the slice of curr shrank
    }
    lengthChanged(rq);
  }

  @Override
  public void dequeue(Cpu cpu, Task task) {
    Rq rq = rqs[cpu.index()];
    Entity se = entity(task);
    checkState(se.heapIndex >= 0 && se.rqIndex == rq.index, "%s is not queued on %s", task, cpu);
    updateCurr(rq);
    peltDequeue(rq, se);
    remove(rq, se);
    updateMinVruntime(rq);
    lengthChanged(rq);
  }

  @Override
  public void putPrev(Cpu cpu, Task prev) {
    Rq rq = rqs[cpu.index()];
    checkState(rq.curr != null && rq.curr.task == prev, "%s put back on %s but current is %s", prev, cpu, rq.curr);
    updateCurr(rq);
    rq.curr = null;
    cancelHrtick(rq);
    Entity se = entity(prev);
    insert(rq, se);
    rq.lastPut = se;
  }

  @Override
  public Task pickNext(Cpu cpu) {
    Rq rq = rqs[cpu.index()];
    if (rq.curr != null) {
      // the current task went to sleep or exited (dequeue_entity of curr, clear_buddies)
      if (rq.skip == rq.curr) {
        rq.skip = null;
      }
      if (rq.next == rq.curr) {
        rq.next = null;
      }
      updateCurr(rq);
      peltDequeue(rq, rq.curr);
      rq.curr = null;
      updateMinVruntime(rq);
    }
    cancelHrtick(rq);
    if (rq.activeBalanceTarget >= 0) {
      activeBalance(rq);
    }
    if (rq.size == 0) {
      lengthChanged(rq);
      return null;
    }
    Entity left = rq.heap[0];
    Entity se = left;
    if (rq.skip == se) {
      Entity second = secondLeftmost(rq);
      if (second != null && wakeupPreemptEntity(second, left) < 1) {
        se = second;
      }
    }
    if (rq.next != null && wakeupPreemptEntity(rq.next, left) < 1) {
      se = rq.next;
    }
    remove(rq, se); // clear_buddies(cfs_rq, se)
    setNext(rq, se);
    lengthChanged(rq);
    return se.task;
  }

  @Override
  public Cpu selectCpu(Task task, Cpu wakerCpu) {
    if (task.pinnedCpu() >= 0) {
      return kernel.cpu(task.pinnedCpu());
    }
    Cpu prev = task.cpu();
    if (prev == null || prev.kernel() != kernel || !entity(task).placed) {
      Cpu start = wakerCpu != null && wakerCpu.kernel() == kernel ? wakerCpu : kernel.cpu(0);
      Cpu c = balancing ? findIdlest(start, task) : idlest(wakerCpu);
      if (c != start && stats != null && balancing) {
        stats.migrated(org.lockvisor.machine.MigrationCause.FORK);
      }
      return c;
    }
    Cpu target = prev;
    if (wakeAffine && wakerCpu != null && wakerCpu.kernel() == kernel) {
      Task waker = wakerCpu.current();
      boolean wantAffine = true;
      if (era == Era.LINUX_4_8 && waker != null && waker != wakerCpu.idleTask() && waker.kernel() == kernel) {
        recordWakee(entity(waker), task);
        wantAffine = !wakeWide(entity(waker), entity(task));
      }
      if (wantAffine && wakerCpu != prev) {
        int level = domains().lowestCommon(wakerCpu.index(), prev.index());
        int pct = level < 0 ? 125 : domains.level(level).imbalancePct();
        if (affine(wakerCpu, prev, task, pct)) {
          target = wakerCpu;
        }
      }
    }
    Cpu chosen = selectIdleSibling(task, prev, target);
    if (chosen != prev) {
      stats.migrated(org.lockvisor.machine.MigrationCause.WAKE);
    }
    return chosen;
  }

  /**
   * select_idle_sibling(p, prev, target): target if idle; prev if it shares the LLC and is idle;
   * else within sd_llc: era 3.0 the first idle CPU in CPU order; era 4.8 (3.10+) a group of the
   * LLC level that is wholly idle, then level by level down to an idle SMT sibling; else target.
   */
  private Cpu selectIdleSibling(Task p, Cpu prev, Cpu target) {
    if (availableIdle(target)) {
      return target;
    }
    if (target != prev && kernel.sharesCache(prev, target) && availableIdle(prev)) {
      return prev;
    }
    SchedDomains d = domains();
    int llc = d.llcLevel();
    if (llc < 0) {
      return target;
    }
    int t = target.index();
    if (era == Era.LINUX_3_0) {
      for (int i = d.spanStart(llc, t); i < d.spanEnd(llc, t); i++) {
        if (availableIdle(kernel.cpu(i))) {
          return kernel.cpu(i);
        }
      }
      return target;
    }
    for (int l = llc; l >= 0; l--) {
      int start = d.spanStart(l, t);
      int end = d.spanEnd(l, t);
      int g = d.level(l).groupSize();
      int groups = (end - start + g - 1) / g;
      int local = (t - start) / g;
      for (int k = 1; k < groups; k++) {
        int gs = start + ((local + k) % groups) * g;
        int ge = Math.min(end, gs + g);
        boolean idle = true;
        for (int i = gs; i < ge && idle; i++) {
          idle = availableIdle(kernel.cpu(i));
        }
        if (idle) {
          return kernel.cpu(gs);
        }
      }
    }
    return target;
  }

  /** record_wakee: the waker's wakee flips count switches of wakee, halved every second. */
  private void recordWakee(Entity waker, Task wakee) {
    long now = sim.now();
    if (now - waker.wakeeFlipDecayTs > WAKEE_FLIP_DECAY_NS) {
      waker.wakeeFlips >>= 1;
      waker.wakeeFlipDecayTs = now;
    }
    if (waker.lastWakee != wakee) {
      waker.lastWakee = wakee;
      waker.wakeeFlips++;
    }
  }

  /** wake_wide (4.8): both fan out to at least an LLC's worth of partners, one by that factor more. */
  private boolean wakeWide(Entity waker, Entity wakee) {
    int factor = Math.max(1, Math.min(kernel.cpuCount(), kernel.topology().llcCpus()));
    int master = Math.max(waker.wakeeFlips, wakee.wakeeFlips);
    int slave = Math.min(waker.wakeeFlips, wakee.wakeeFlips);
    return slave >= factor && master >= (long) slave * factor;
  }

  /**
   * wake_affine (3.x–4.8, root task group, equal capacities, not sync): {@code 100 × (this_load +
   * w) <= (100 + (imbalance_pct - 100) / 2) × prev_load}, or an empty waker runqueue (4.8). The
   * wakee is asleep, so only the waker's side adds its weight ({@code effective_load} of the root
   * group returns its argument).
   */
  private boolean affine(Cpu thisCpu, Cpu prevCpu, Task p, int imbalancePct) {
    long thisLoad = cpuLoad(rqs[thisCpu.index()]);
    long prevLoad = cpuLoad(rqs[prevCpu.index()]);
    if (thisLoad <= 0) {
      return true;
    }
    long w = taskLoad(entity(p)); // 4.8: p->se.avg.load_avg, as last updated
    return 100 * (thisLoad + w) <= (100 + (imbalancePct - 100) / 2) * prevLoad;
  }

  @Override
  public boolean wakeupPreempt(Cpu cpu, Task current, Task woken) {
    Rq rq = rqs[cpu.index()];
    if (rq.curr == null || rq.curr.task != current) {
      return false;
    }
    updateCurr(rq);
    long vdiff = current.vruntime - woken.vruntime;
    if (vdiff <= 0) {
      return false;
    }
    return vdiff > calcDeltaFair(wakeupGranularityNs, woken.weight);
  }

  @Override
  public void tick(Cpu cpu, Task current) {
    Rq rq = rqs[cpu.index()];
    if (rq.curr == null || rq.curr.task != current) {
      return;
    }
    updateCurr(rq);
    if (pelt) {
      // entity_tick -> update_load_avg(curr, 1): the running entity and its cfs_rq
      long now = sim.now();
      rq.curr.avg.update(now, rq.curr.task.weight);
      rq.avg.update(now, load(rq));
    }
    if (nrRunning(rq) > 1) {
      checkPreemptTick(cpu, rq);
    }
    if (balancing) {
      long now = sim.now();
      if (now >= rq.nextBalance) {
        rebalanceDomains(rq, CPU_NOT_IDLE, org.lockvisor.machine.MigrationCause.PERIODIC);
      }
      if (now >= nohzNextBalance && (nrRunning(rq) >= 2 || busySibling(cpu.index()))) {
        nohzIdleBalance();
      }
    }
  }

  @Override
  public void switchedIn(Cpu cpu, Task task) {
    Rq rq = rqs[cpu.index()];
    if (task == cpu.idleTask()) {
      checkState(rq.curr == null, "%s idles with current %s", cpu, rq.curr);
      return;
    }
    checkState(rq.curr != null && rq.curr.task == task, "%s switched to %s, picked %s", cpu, task, rq.curr);
    task.execStart = sim.now();
    task.execStartSteal = cpu.stealClock();
  }

  @Override
  public boolean yieldTo(Cpu cpu, Task current, Task target) {
    Entity se = entity(target);
    if (se.heapIndex < 0) {
      return false; // !se->on_rq: running, or not queued
    }
    rqs[se.rqIndex].next = se; // set_next_buddy
    Rq rq = rqs[cpu.index()];
    // yield_task_fair: with another task to run, the yielder becomes the skip buddy
    if (nrRunning(rq) > 1 && rq.curr != null && rq.curr.task == current) {
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

  @Override
  public Task balanceIdle(Cpu cpu) {
    Rq dst = rqs[cpu.index()];
    if (!balancing) {
      return legacyIdlePull(cpu, dst);
    }
    // idle_balance
    dst.idleStamp = sim.now();
    if (dst.avgIdle < MIGRATION_COST_NS || (era == Era.LINUX_4_8 && !overload)) {
      return null;
    }
    SchedDomains d = domains();
    for (int l = 0; l < d.count(); l++) {
      if (loadBalance(dst, l, CPU_NEWLY_IDLE, org.lockvisor.machine.MigrationCause.NEWIDLE) > 0) {
        break;
      }
    }
    if (dst.size == 0) {
      return null;
    }
    dst.idleStamp = -1;
    return pickNext(cpu);
  }

  /** The model's newidle pull before issue 17: the longest-waiting movable task of the busiest runqueue. */
  private Task legacyIdlePull(Cpu cpu, Rq dst) {
    Rq busiest = null;
    for (Rq rq : rqs) {
      if (rq == dst || rq.size == 0 || !hasMovable(rq, cpu.index())) {
        continue;
      }
      if (busiest == null || nrRunning(rq) > nrRunning(busiest)) {
        busiest = rq;
      }
    }
    if (busiest == null) {
      return null;
    }
    long now = sim.now();
    Entity pick = null;
    for (int i = 0; i < busiest.size; i++) {
      Entity se = busiest.heap[i];
      if (!movable(se, cpu.index())) {
        continue;
      }
      long wait = now - se.waitStart;
      if (pick == null || wait > now - pick.waitStart || (wait == now - pick.waitStart && se.seq < pick.seq)) {
        pick = se;
      }
    }
    peltDequeue(busiest, pick);
    remove(busiest, pick);
    updateMinVruntime(busiest);
    lengthChanged(busiest);
    Task t = pick.task;
    t.vruntime = t.vruntime - busiest.minVruntime + dst.minVruntime;
    peltEnqueue(dst, pick);
    dst.migrationsIn++;
    stats.migrated(org.lockvisor.machine.MigrationCause.NEWIDLE);
    setNext(dst, pick);
    lengthChanged(dst);
    return t;
  }

  /** Tasks pulled to {@code cpu} by balancing so far. */
  public long idlePulls(Cpu cpu) {
    return rqs[cpu.index()].migrationsIn;
  }

  // ---------------------------------------------------------------------------------------
  // Load balancing (kernel/sched/fair.c).

  /** rebalance_domains for {@code rq}'s CPU: each level whose interval is due runs load_balance. */
  private void rebalanceDomains(Rq rq, int idle, org.lockvisor.machine.MigrationCause cause) {
    SchedDomains d = domains();
    long now = sim.now();
    long tick = kernel.config().tickNs();
    // max_load_balance_interval = HZ * num_online_cpus / 10 jiffies
    long maxInterval = Math.max(tick, 100_000_000L * kernel.cpuCount());
    long next = Long.MAX_VALUE;
    for (int l = 0; l < d.count(); l++) {
      SchedDomains.Level level = d.level(l);
      long interval = rq.balanceInterval[l] * 1_000_000L;
      if (idle != CPU_IDLE) {
        interval *= level.busyFactor();
      }
      interval = Math.max(tick, Math.min(maxInterval, roundToTicks(interval, tick)));
      if (now - rq.lastBalance[l] >= interval) {
        if (loadBalance(rq, l, idle, cause) > 0) {
          idle = CPU_NOT_IDLE;
        }
        rq.lastBalance[l] = now;
      }
      next = Math.min(next, rq.lastBalance[l] + interval);
    }
    rq.nextBalance = next == Long.MAX_VALUE ? now + tick : next;
  }

  private static long roundToTicks(long ns, long tick) {
    return (ns + tick - 1) / tick * tick; // msecs_to_jiffies rounds up
  }

  /**
   * nohz_idle_balance: a busy CPU's tick found two or more tasks and tick-stopped idle CPUs; the
   * first idle CPU balances on behalf of every idle CPU whose balance is due.
   */
  private void nohzIdleBalance() {
    long now = sim.now();
    nohzNextBalance = now + kernel.config().tickNs();
    boolean any = false;
    for (Rq rq : rqs) {
      if (rq.curr != null || rq.size > 0 || !kernel.cpu(rq.index).isIdle()) {
        continue;
      }
      any = true;
      if (now >= rq.nextBalance) {
        rebalanceDomains(rq, CPU_IDLE, org.lockvisor.machine.MigrationCause.NOHZ);
      }
    }
    if (!any) {
      nohzNextBalance = now + kernel.config().tickNs();
    }
  }

  /**
   * load_balance(dst, sd, idle) at level {@code l}: should_we_balance, find_busiest_group,
   * find_busiest_queue, detach/attach tasks, nr_balance_failed and active balance, the
   * balance_interval backoff. Returns the number of tasks moved.
   */
  private int loadBalance(Rq dst, int l, int idle, org.lockvisor.machine.MigrationCause cause) {
    SchedDomains d = domains();
    SchedDomains.Level level = d.level(l);
    int cpu = dst.index;
    int start = d.spanStart(l, cpu);
    int end = d.spanEnd(l, cpu);
    int g = level.groupSize();
    int localStart = start + (cpu - start) / g * g;
    int localEnd = Math.min(end, localStart + g);
    if (idle != CPU_NEWLY_IDLE && !shouldWeBalance(cpu, localStart, localEnd)) {
      return 0;
    }
    // update_sd_lb_stats: per group load, nr_running, capacity
    long totalLoad = 0;
    int totalCpus = 0;
    long localLoad = 0;
    int localNr = 0;
    int localCpus = localEnd - localStart;
    int localCapacity = level.smtGroups() ? 1 : localCpus;
    int localIdle = 0;
    int busiestStart = -1;
    long busiestLoad = 0;
    int busiestNr = 0;
    int busiestCpus = 0;
    int busiestIdle = 0;
    boolean busiestOverloaded = false;
    boolean anyOverloaded = false;
    for (int gs = start; gs < end; gs += g) {
      int ge = Math.min(end, gs + g);
      long load = 0;
      int nr = 0;
      int idleCpus = 0;
      for (int i = gs; i < ge; i++) {
        Rq rq = rqs[i];
        int n = nrRunning(rq);
        load += cpuLoad(rq);
        nr += n;
        if (n == 0) {
          idleCpus++;
        }
        if (n > 1) {
          anyOverloaded = true;
        }
      }
      int ncpu = ge - gs;
      totalLoad += load;
      totalCpus += ncpu;
      if (gs == localStart) {
        localLoad = load;
        localNr = nr;
        localIdle = idleCpus;
        continue;
      }
      int capacity = level.smtGroups() ? 1 : ncpu;
      boolean overloaded = nr > capacity;
      // update_sd_pick_busiest: overloaded groups first, then the highest average load
      boolean pick;
      if (busiestStart < 0) {
        pick = nr > 0;
      } else if (overloaded != busiestOverloaded) {
        pick = overloaded;
      } else {
        pick = load * busiestCpus > busiestLoad * ncpu;
      }
      if (pick) {
        busiestStart = gs;
        busiestLoad = load;
        busiestNr = nr;
        busiestCpus = ncpu;
        busiestIdle = idleCpus;
        busiestOverloaded = overloaded;
      }
    }
    if (l == d.count() - 1) {
      overload = anyOverloaded; // the root domain's update_sd_lb_stats
    }
    int moved = 0;
    long imbalance = 0;
    boolean balanced;
    if (busiestStart < 0 || busiestNr == 0) {
      balanced = true;
    } else {
      // find_busiest_group (per-CPU average loads, SCHED_CAPACITY_SCALE cancelled out)
      double avg = (double) totalLoad / totalCpus;
      double localAvg = (double) localLoad / localCpus;
      double busiestAvg = (double) busiestLoad / busiestCpus;
      boolean force = idle != CPU_NOT_IDLE && localNr < localCapacity && busiestOverloaded;
      if (force) {
        balanced = false;
      } else if (localAvg >= busiestAvg || localAvg >= avg) {
        balanced = true;
      } else if (idle == CPU_IDLE) {
        balanced = !busiestOverloaded && localIdle <= busiestIdle + 1;
      } else {
        balanced = 100 * busiestAvg <= level.imbalancePct() * localAvg;
      }
      if (!balanced) {
        // calculate_imbalance + fix_small_imbalance
        long loadPerTask = busiestLoad / Math.max(1, busiestNr);
        double pull = Math.min((busiestAvg - avg) * busiestCpus, (avg - localAvg) * localCpus);
        imbalance = (long) Math.max(0, pull);
        if (imbalance < loadPerTask && busiestAvg - localAvg >= loadPerTask) {
          imbalance = loadPerTask;
        }
        Rq busiest = findBusiestQueue(busiestStart, Math.min(end, busiestStart + g), imbalance, cpu);
        if (busiest != null && nrRunning(busiest) > 1) {
          moved = detachTasks(busiest, dst, imbalance, level, l, cause);
        }
        if (moved == 0) {
          if (idle != CPU_NEWLY_IDLE) {
            dst.nrBalanceFailed[l]++;
          }
          if (busiest != null && dst.nrBalanceFailed[l] > level.cacheNiceTries() + 2
              && busiest.curr != null && movable(busiest.curr.task, cpu) && busiest.activeBalanceTarget < 0) {
            // need_active_balance: kick the busiest CPU's stopper
            busiest.activeBalanceTarget = cpu;
            kernel.cpu(busiest.index).reschedule();
            dst.nrBalanceFailed[l] = level.cacheNiceTries() + 1;
          }
        } else {
          dst.nrBalanceFailed[l] = 0;
        }
      }
    }
    if (moved > 0) {
      dst.balanceInterval[l] = level.minIntervalMs();
    } else {
      if (balanced) {
        dst.nrBalanceFailed[l] = 0;
      }
      if (dst.balanceInterval[l] < level.maxIntervalMs()) {
        dst.balanceInterval[l] *= 2;
      }
    }
    return moved;
  }

  /**
   * nohz_kick_needed's second reason (3.x {@code sd_busy} / 4.8 {@code sd_llc_shared}
   * nr_busy_cpus): another thread of this CPU's SMT core is busy too.
   */
  private boolean busySibling(int cpu) {
    SchedDomains d = domains();
    if (d.count() == 0 || !"SMT".equals(d.level(0).name())) {
      return false;
    }
    for (int i = d.spanStart(0, cpu); i < d.spanEnd(0, cpu); i++) {
      if (i != cpu && nrRunning(rqs[i]) > 0) {
        return true;
      }
    }
    return false;
  }

  /** should_we_balance: the first idle CPU of the local group, else the group's first CPU. */
  private boolean shouldWeBalance(int cpu, int localStart, int localEnd) {
    for (int i = localStart; i < localEnd; i++) {
      if (nrRunning(rqs[i]) == 0 && kernel.cpu(i).isIdle()) {
        return i == cpu;
      }
    }
    return localStart == cpu;
  }

  /** find_busiest_queue: the most loaded runqueue, skipping one whose single task outweighs the imbalance. */
  private Rq findBusiestQueue(int gs, int ge, long imbalance, int dstCpu) {
    Rq best = null;
    long bestLoad = -1;
    for (int i = gs; i < ge; i++) {
      Rq rq = rqs[i];
      if (i == dstCpu) {
        continue;
      }
      long wl = cpuLoad(rq);
      if (nrRunning(rq) == 1 && wl > imbalance) {
        continue;
      }
      if (wl > bestLoad) {
        best = rq;
        bestLoad = wl;
      }
    }
    return best;
  }

  /**
   * detach_tasks/attach_tasks: least recently run queued tasks first, skipping pinned and
   * cache-hot ones (unless balancing failed more than cache_nice_tries times) and ones whose half
   * load exceeds what is left of the imbalance; at most sysctl_sched_nr_migrate looked at.
   */
  private int detachTasks(Rq src, Rq dst, long imbalance, SchedDomains.Level level, int l,
      org.lockvisor.machine.MigrationCause cause) {
    long now = sim.now();
    int moved = 0;
    int looked = 0;
    long lastPicked = Long.MIN_VALUE;
    int lastSeq = -1;
    int limit = Math.min(NR_MIGRATE, nrRunning(src));
    boolean hotOk = dst.nrBalanceFailed[l] > level.cacheNiceTries();
    while (imbalance > 0 && looked < limit && src.size > 0) {
      // the next least recently run entity after (lastPicked, lastSeq) in (lastRanAt, seq) order
      Entity pick = null;
      for (int i = 0; i < src.size; i++) {
        Entity se = src.heap[i];
        long ran = se.task.lastRanAt;
        if (ran < lastPicked || (ran == lastPicked && se.seq <= lastSeq)) {
          continue;
        }
        if (pick == null || ran < pick.task.lastRanAt || (ran == pick.task.lastRanAt && se.seq < pick.seq)) {
          pick = se;
        }
      }
      if (pick == null) {
        break;
      }
      looked++;
      lastPicked = pick.task.lastRanAt;
      lastSeq = (int) pick.seq;
      long w = taskLoad(pick); // task_h_load: the root group's se.avg.load_avg in 4.8
      if (!movable(pick, dst.index)) {
        continue;
      }
      if (!hotOk && now - pick.task.lastRanAt < MIGRATION_COST_NS && pick.task.lastRanAt > 0) {
        continue; // task_hot
      }
      if (w / 2 > imbalance) {
        continue;
      }
      migrate(src, dst, pick, cause);
      moved++;
      imbalance -= w;
    }
    return moved;
  }

  /** Moves a queued entity between runqueues (vruntime relative to min_vruntime) and kicks {@code dst}. */
  private void migrate(Rq src, Rq dst, Entity se, org.lockvisor.machine.MigrationCause cause) {
    updateCurr(src);
    peltDequeue(src, se);
    remove(src, se);
    updateMinVruntime(src);
    Task t = se.task;
    t.vruntime = t.vruntime - src.minVruntime + dst.minVruntime;
    updateCurr(dst);
    peltEnqueue(dst, se);
    insert(dst, se);
    kernel.moveQueued(t, kernel.cpu(dst.index));
    dst.migrationsIn++;
    stats.migrated(cause);
    if (nrRunning(dst) >= 2) {
      overload = true;
    }
    lengthChanged(src);
    lengthChanged(dst);
    Cpu c = kernel.cpu(dst.index);
    if (c.isIdle() || (dst.curr != null && wakeupPreempt(c, dst.curr.task, t))) {
      c.reschedule(); // check_preempt_curr after attach_task
    }
  }

  /** active_load_balance_cpu_stop on {@code rq}: push the task that was running to the idle CPU. */
  private void activeBalance(Rq rq) {
    int target = rq.activeBalanceTarget;
    rq.activeBalanceTarget = -1;
    Entity se = rq.lastPut;
    Rq dst = rqs[target];
    if (se == null || se.heapIndex < 0 || se.rqIndex != rq.index || !movable(se, target) || nrRunning(dst) > 0) {
      return;
    }
    migrate(rq, dst, se, org.lockvisor.machine.MigrationCause.ACTIVE);
  }

  private void lengthChanged(Rq rq) {
    int n = nrRunning(rq);
    if (n >= 2) {
      overload = true; // add_nr_running (4.x)
    }
    stats.nrRunning(rq.index, n, sim.now());
  }

  // ---------------------------------------------------------------------------------------
  // Timers.

  @Override
  public void onEvent(int cpuIndex, long taskId) {
    Rq rq = rqs[cpuIndex];
    rq.hrtickHandle = EventQueue.NO_EVENT;
    if (rq.curr == null || rq.curr.task.id() != taskId) {
      return;
    }
    updateCurr(rq);
    // entity_tick(queued=1): the slice is over; schedule() would pick curr again if alone
    if (rq.size > 0) {
      kernel.cpu(cpuIndex).reschedule();
    }
  }

  private void armHrtick(Rq rq) {
    cancelHrtick(rq);
    if (rq.curr == null || nrRunning(rq) <= 1) {
      return;
    }
    Task t = rq.curr.task;
    long ran = t.sumExecRuntime + (sim.now() - t.execStart) - t.prevSumExecRuntime;
    long delta = slice(rq, t.weight, true) - ran;
    if (delta < 0) {
      kernel.cpu(rq.index).reschedule();
      return;
    }
    rq.hrtickHandle = sim.schedule(Math.max(delta, HRTICK_MIN_NS), this, rq.index, t.id());
  }

  private void cancelHrtick(Rq rq) {
    if (rq.hrtickHandle != EventQueue.NO_EVENT) {
      sim.cancel(rq.hrtickHandle);
      rq.hrtickHandle = EventQueue.NO_EVENT;
    }
  }

  // ---------------------------------------------------------------------------------------
  // fair.c helpers.

  private void setNext(Rq rq, Entity se) {
    Task t = se.task;
    rq.curr = se;
    se.rqIndex = rq.index;
    t.execStart = sim.now();
    t.execStartSteal = kernel.cpu(rq.index).stealClock();
    t.prevSumExecRuntime = t.sumExecRuntime;
    if (hrtick) {
      armHrtick(rq);
    }
  }

  private void updateCurr(Rq rq) {
    Entity curr = rq.curr;
    if (curr == null) {
      return;
    }
    Task t = curr.task;
    long now = sim.now();
    long delta = now - t.execStart;
    if (kernel.stealTimeAccounting()) {
      // update_rq_clock_task: steal time is not the task's execution time
      long steal = kernel.cpu(rq.index).stealClock();
      delta -= steal - t.execStartSteal;
      t.execStartSteal = steal;
    }
    if (delta <= 0) {
      t.execStart = now;
      return;
    }
    t.execStart = now;
    t.sumExecRuntime += delta;
    t.lastRanAt = now;
    t.vruntime += calcDeltaFair(delta, t.weight);
    updateMinVruntime(rq);
  }

  private static void updateMinVruntime(Rq rq) {
    boolean any = false;
    long v = 0;
    if (rq.curr != null) {
      v = rq.curr.task.vruntime;
      any = true;
    }
    if (rq.size > 0) {
      long left = rq.heap[0].task.vruntime;
      v = any ? Math.min(v, left) : left;
      any = true;
    }
    if (any && v > rq.minVruntime) {
      rq.minVruntime = v;
    }
  }

  private void checkPreemptTick(Cpu cpu, Rq rq) {
    Task t = rq.curr.task;
    long ideal = slice(rq, t.weight, true);
    long deltaExec = t.sumExecRuntime - t.prevSumExecRuntime;
    if (deltaExec > ideal) {
      cpu.reschedule();
      return;
    }
    if (deltaExec < minGranularityNs || rq.size == 0) {
      return;
    }
    long delta = t.vruntime - rq.heap[0].task.vruntime;
    if (delta > ideal) {
      cpu.reschedule();
    }
  }

  /** sched_slice for an entity of {@code weight}; {@code onRq} says whether it is already counted. */
  private long slice(Rq rq, int weight, boolean onRq) {
    int nr = nrRunning(rq) + (onRq ? 0 : 1);
    long load = load(rq) + (onRq ? 0 : weight);
    long period = nr > nrLatency ? nr * minGranularityNs : latencyNs;
    return load == 0 ? period : (long) ((double) period * weight / load);
  }

  private static long calcDeltaFair(long delta, int weight) {
    return weight == NICE_0_LOAD ? delta : delta * NICE_0_LOAD / weight;
  }

  private static int nrRunning(Rq rq) {
    return rq.size + (rq.curr != null ? 1 : 0);
  }

  private static long load(Rq rq) {
    return rq.queuedLoad + (rq.curr != null ? rq.curr.task.weight : 0);
  }

  /**
   * weighted_cpuload / source_load / target_load at index 0: era 4.8 the PELT {@code
   * runnable_load_avg} of the cfs_rq as last updated (a remote runqueue is read, not updated, as
   * the kernel does); era 3.0 the runqueue's runnable weight ({@code rq->load.weight}).
   */
  private long cpuLoad(Rq rq) {
    return pelt ? rq.avg.avg : load(rq);
  }

  /** A task's load for placement and balancing: 4.8 {@code se.avg.load_avg} as last updated, 3.0 its weight. */
  private long taskLoad(Entity se) {
    return pelt ? se.avg.avg : se.task.weight;
  }

  /**
   * enqueue_entity_load_avg (4.8): the entity decays over the time it was blocked (weight 0; a new
   * task starts with its full weight, {@code init_entity_runnable_average}), the cfs_rq is brought
   * up to date with the weight it had, and the entity's load joins {@code runnable_load_avg}.
   */
  private void peltEnqueue(Rq rq, Entity se) {
    if (!pelt) {
      return;
    }
    long now = sim.now();
    if (se.avg.last == Long.MIN_VALUE) {
      se.avg.last = now; // attach_entity_load_avg of post_init_entity_util_avg: synced to now
    } else {
      se.avg.update(now, 0);
    }
    rq.avg.update(now, load(rq));
    rq.avg.avg += se.avg.avg;
    rq.avg.sum += se.avg.sum;
  }

  /**
   * dequeue_entity_load_avg (4.8): entity and cfs_rq brought up to date while still runnable, then
   * the entity's load leaves {@code runnable_load_avg} (clamped at zero, as the kernel's max_t).
   */
  private void peltDequeue(Rq rq, Entity se) {
    if (!pelt) {
      return;
    }
    long now = sim.now();
    se.avg.update(now, se.task.weight);
    rq.avg.update(now, load(rq));
    rq.avg.avg = Math.max(0, rq.avg.avg - se.avg.avg);
    rq.avg.sum = Math.max(0, rq.avg.sum - se.avg.sum);
  }

  /** {@code runnable_load_avg} of {@code cpu}'s runqueue as last updated (era 4.8; 0 otherwise). */
  public long runnableLoadAvg(Cpu cpu) {
    return rqs[cpu.index()].avg.avg;
  }

  /** The task's PELT {@code load_avg} as last updated (era 4.8; 0 before it was first enqueued or otherwise). */
  public long loadAvg(Task t) {
    return t.schedData instanceof Entity e ? e.avg.avg : 0;
  }

  private boolean availableIdle(Cpu c) {
    Rq rq = rqs[c.index()];
    return c.isIdle() && rq.size == 0 && rq.curr == null;
  }

  /**
   * SD_BALANCE_FORK placement (select_task_rq_fair's slow path): from the highest domain of
   * {@code start} down, find_idlest_group (the group with the lowest per-CPU load, taken only if
   * {@code 100 × local < (100 + (imbalance_pct - 100) / 2) × idlest}, else the level below), then
   * find_idlest_cpu in it (an idle CPU first, else the least loaded), and on from that CPU one
   * level lower.
   */
  private Cpu findIdlest(Cpu start, Task p) {
    SchedDomains d = domains();
    int cpu = start.index();
    for (int l = d.count() - 1; l >= 0; l--) {
      SchedDomains.Level level = d.level(l);
      int s0 = d.spanStart(l, cpu);
      int e0 = d.spanEnd(l, cpu);
      int g = level.groupSize();
      int localStart = s0 + (cpu - s0) / g * g;
      long localLoad = 0;
      int localCpus = 0;
      int idlestStart = -1;
      long idlestLoad = 0;
      int idlestCpus = 1;
      int groups = (e0 - s0 + g - 1) / g;
      int localIdx = (cpu - s0) / g;
      for (int k = 0; k < groups; k++) {
        int gs = s0 + ((localIdx + k) % groups) * g;
        int ge = Math.min(e0, gs + g);
        long load = 0;
        for (int i = gs; i < ge; i++) {
          load += cpuLoad(rqs[i]);
        }
        if (gs == localStart) {
          localLoad = load;
          localCpus = ge - gs;
        } else if (idlestStart < 0 || load * idlestCpus < idlestLoad * (ge - gs)) {
          idlestStart = gs;
          idlestLoad = load;
          idlestCpus = ge - gs;
        }
      }
      int imbalance = 100 + (level.imbalancePct() - 100) / 2;
      if (idlestStart < 0 || 100 * localLoad * idlestCpus < (long) imbalance * idlestLoad * localCpus) {
        continue; // stay in the local group, one level down
      }
      int best = -1;
      long bestLoad = Long.MAX_VALUE;
      for (int i = idlestStart; i < Math.min(e0, idlestStart + g); i++) {
        if (availableIdle(kernel.cpu(i))) {
          best = i;
          break;
        }
        long load = cpuLoad(rqs[i]);
        if (load < bestLoad) {
          best = i;
          bestLoad = load;
        }
      }
      cpu = best;
    }
    return kernel.cpu(cpu);
  }

  /** find_idlest_cpu, reduced: the first idle CPU, else the one with the fewest runnable tasks. */
  private Cpu idlest(Cpu wakerCpu) {
    Cpu best = null;
    for (int i = 0; i < rqs.length; i++) {
      Cpu c = kernel.cpu(i);
      if (availableIdle(c)) {
        return c;
      }
      if (best == null || nrRunning(rqs[i]) < nrRunning(rqs[best.index()])) {
        best = c;
      }
    }
    return best;
  }

  private static boolean movable(Entity se, int cpuIndex) {
    return movable(se.task, cpuIndex);
  }

  private static boolean movable(Task t, int cpuIndex) {
    int pin = t.pinnedCpu();
    return pin < 0 || pin == cpuIndex;
  }

  private static boolean hasMovable(Rq rq, int cpuIndex) {
    for (int i = 0; i < rq.size; i++) {
      if (movable(rq.heap[i], cpuIndex)) {
        return true;
      }
    }
    return false;
  }

  private Entity entity(Task t) {
    if (t.schedData instanceof Entity e) {
      return e;
    }
    checkState(t.kernel() == kernel, "%s belongs to kernel %s, not %s", t, t.kernel(), kernel);
    checkArgument(t.weight > 0, "%s has a non-positive weight: %s", t, t.weight);
    Entity e = new Entity(t);
    t.schedData = e;
    return e;
  }

  // ---------------------------------------------------------------------------------------
  // The timeline: an indexed binary min-heap ordered by (vruntime, enqueue sequence).

  private void insert(Rq rq, Entity se) {
    checkState(se.heapIndex < 0, "%s is queued already", se.task);
    se.seq = enqueueSeq++;
    se.waitStart = sim.now();
    se.rqIndex = rq.index;
    if (rq.size == rq.heap.length) {
      rq.heap = Arrays.copyOf(rq.heap, rq.heap.length * 2);
    }
    rq.heap[rq.size] = se;
    se.heapIndex = rq.size;
    rq.size++;
    rq.queuedLoad += se.task.weight;
    siftUp(rq, se.heapIndex);
  }

  private void remove(Rq rq, Entity se) {
    if (rq.next == se) {
      rq.next = null;
    }
    if (rq.skip == se) {
      rq.skip = null;
    }
    int i = se.heapIndex;
    checkState(i >= 0 && i < rq.size && rq.heap[i] == se, "%s is not in runqueue %s", se.task, rq.index);
    rq.size--;
    rq.queuedLoad -= se.task.weight;
    se.heapIndex = -1;
    if (i != rq.size) {
      Entity last = rq.heap[rq.size];
      rq.heap[i] = last;
      last.heapIndex = i;
      siftDown(rq, i);
      siftUp(rq, last.heapIndex);
    }
    rq.heap[rq.size] = null;
  }

  /** The second entity in vruntime order: the smaller child of the heap's root. */
  private static Entity secondLeftmost(Rq rq) {
    if (rq.size < 2) {
      return null;
    }
    if (rq.size == 2 || before(rq.heap[1], rq.heap[2])) {
      return rq.heap[1];
    }
    return rq.heap[2];
  }

  /** wakeup_preempt_entity(curr, se): -1 not ahead, 0 within the granularity, 1 beyond it. */
  private int wakeupPreemptEntity(Entity candidate, Entity left) {
    long vdiff = candidate.task.vruntime - left.task.vruntime;
    if (vdiff <= 0) {
      return -1;
    }
    return vdiff > calcDeltaFair(wakeupGranularityNs, left.task.weight) ? 1 : 0;
  }

  private static boolean before(Entity a, Entity b) {
    long va = a.task.vruntime;
    long vb = b.task.vruntime;
    return va < vb || (va == vb && a.seq < b.seq);
  }

  private static void siftUp(Rq rq, int i) {
    Entity[] h = rq.heap;
    Entity x = h[i];
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      Entity p = h[parent];
      if (!before(x, p)) {
        break;
      }
      h[i] = p;
      p.heapIndex = i;
      i = parent;
    }
    h[i] = x;
    x.heapIndex = i;
  }

  private static void siftDown(Rq rq, int i) {
    Entity[] h = rq.heap;
    int n = rq.size;
    Entity x = h[i];
    while (true) {
      int child = 2 * i + 1;
      if (child >= n) {
        break;
      }
      if (child + 1 < n && before(h[child + 1], h[child])) {
        child++;
      }
      if (!before(h[child], x)) {
        break;
      }
      h[i] = h[child];
      h[i].heapIndex = i;
      i = child;
    }
    h[i] = x;
    x.heapIndex = i;
  }

  /** One CPU's cfs_rq. */
  private static final class Rq {
    final int index;
    Entity[] heap = new Entity[8];
    int size;
    long queuedLoad;
    Entity curr;
    /** Buddies: next (yield_to target), skip (the yielder). */
    Entity next;
    Entity skip;
    long minVruntime;
    long hrtickHandle = EventQueue.NO_EVENT;
    long migrationsIn;
    /** idle_stamp (-1: not idle) and avg_idle, starting at twice the migration cost (sched_init). */
    long idleStamp = -1;
    long avgIdle = 2 * MIGRATION_COST_NS;
    long nextBalance;
    long[] lastBalance;
    long[] balanceInterval;
    int[] nrBalanceFailed;
    int activeBalanceTarget = -1;
    /** The entity put back last (the stopper's victim for active balance). */
    Entity lastPut;
    /** PELT runnable_load_sum / runnable_load_avg of the cfs_rq (era 4.8). */
    final Pelt avg = new Pelt();

    Rq(int index) {
      this.index = index;
    }
  }

  /** A task's sched_entity bookkeeping beyond the public fields of {@link Task}. */
  private static final class Entity {
    final Task task;
    int heapIndex = -1;
    long seq;
    long waitStart;
    int rqIndex = -1;
    boolean placed;
    Task lastWakee;
    int wakeeFlips;
    long wakeeFlipDecayTs;
    /** PELT load_sum / load_avg of the entity (era 4.8). */
    final Pelt avg = new Pelt();

    Entity(Task task) {
      this.task = task;
      // init_entity_runnable_average (4.8): a new task starts with its full weight
      avg.avg = task.weight;
      avg.sum = (long) task.weight * Pelt.LOAD_AVG_MAX;
      avg.periodContrib = 1023;
    }

    @Override
    public String toString() {
      return task.toString();
    }
  }

  /**
   * One {@code struct sched_avg}'s load part, after Linux 4.8 kernel/sched/fair.c {@code
   * __update_load_avg}, {@code decay_load} and {@code __compute_runnable_contrib}: time in units of
   * 1024 ns ("µs"), periods of 1024 of them, each earlier period's contribution decayed by y with
   * y^32 = 1/2 (the kernel's tables {@code runnable_avg_yN_inv} / {@code runnable_avg_yN_sum});
   * {@code load_sum += weight × runnable time}, {@code load_avg = load_sum / LOAD_AVG_MAX}
   * recomputed only when a period boundary was crossed. No frequency or capacity scaling (the
   * model's CPUs run at one speed), and no {@code util_avg}. Allocates nothing.
   */
  static final class Pelt {
    static final int LOAD_AVG_PERIOD = 32;
    static final long LOAD_AVG_MAX = 47742;
    static final int LOAD_AVG_MAX_N = 345;
    /** runnable_avg_yN_inv: y^n × 2^32, n < 32. */
    private static final long[] YN_INV = {
      0xffffffffL, 0xfa83b2daL, 0xf5257d14L, 0xefe4b99aL, 0xeac0c6e6L, 0xe5b906e6L,
      0xe0ccdeebL, 0xdbfbb796L, 0xd744fcc9L, 0xd2a81d91L, 0xce248c14L, 0xc9b9bd85L,
      0xc5672a10L, 0xc12c4cc9L, 0xbd08a39eL, 0xb8fbaf46L, 0xb504f333L, 0xb123f581L,
      0xad583ee9L, 0xa9a15ab4L, 0xa5fed6a9L, 0xa2704302L, 0x9ef5325fL, 0x9b8d39b9L,
      0x9837f050L, 0x94f4efa8L, 0x91c3d373L, 0x8ea4398aL, 0x8b95c1e3L, 0x88980e80L,
      0x85aac367L, 0x82cd8698L,
    };
    /** runnable_avg_yN_sum: floor(1024 × (y + y^2 + ... + y^n)), n ≤ 32. */
    private static final int[] YN_SUM = {
      0, 1002, 1982, 2941, 3880, 4798, 5697, 6576, 7437, 8279, 9103,
      9909, 10698, 11470, 12226, 12966, 13690, 14398, 15091, 15769, 16433, 17082,
      17718, 18340, 18949, 19545, 20128, 20698, 21256, 21802, 22336, 22859, 23371,
    };

    long sum;
    long avg;
    /** last_update_time in ns; MIN_VALUE: not attached yet. */
    long last = Long.MIN_VALUE;
    int periodContrib;

    /** decay_load: {@code val × y^n}. */
    static long decayLoad(long val, long n) {
      if (n == 0) {
        return val;
      }
      if (n > LOAD_AVG_PERIOD * 63) {
        return 0;
      }
      int local = (int) n;
      if (local >= LOAD_AVG_PERIOD) {
        val >>>= local / LOAD_AVG_PERIOD;
        local %= LOAD_AVG_PERIOD;
      }
      // mul_u64_u32_shr(val, inv, 32) without overflow
      long inv = YN_INV[local];
      return (val >>> 32) * inv + (((val & 0xffffffffL) * inv) >>> 32);
    }

    /** __compute_runnable_contrib: {@code 1024 × (y + ... + y^n)}. */
    static long runnableContrib(long n) {
      if (n <= LOAD_AVG_PERIOD) {
        return YN_SUM[(int) n];
      }
      if (n >= LOAD_AVG_MAX_N) {
        return LOAD_AVG_MAX;
      }
      long contrib = 0;
      do {
        contrib /= 2;
        contrib += YN_SUM[LOAD_AVG_PERIOD];
        n -= LOAD_AVG_PERIOD;
      } while (n > LOAD_AVG_PERIOD);
      contrib = decayLoad(contrib, n);
      return contrib + YN_SUM[(int) n];
    }

    /**
     * __update_load_avg(now, sa, weight) (4.8): {@code weight} runnable since the last update.
     * Returns whether a period boundary was crossed (the kernel's {@code decayed}).
     */
    boolean update(long now, long weight) {
      long delta = now - last;
      if (delta < 0) {
        last = now;
        return false;
      }
      delta >>= 10;
      if (delta == 0) {
        return false;
      }
      last = now; // 4.8 drops the sub-1024 ns remainder
      boolean decayed = false;
      long deltaW = periodContrib;
      if (delta + deltaW >= 1024) {
        decayed = true;
        deltaW = 1024 - deltaW;
        sum += weight * deltaW;
        delta -= deltaW;
        long periods = delta / 1024;
        delta %= 1024;
        sum = decayLoad(sum, periods + 1);
        sum += weight * runnableContrib(periods);
        periodContrib = 0;
      }
      sum += weight * delta;
      periodContrib += (int) delta;
      if (decayed) {
        avg = sum / LOAD_AVG_MAX;
      }
      return decayed;
    }
  }
}

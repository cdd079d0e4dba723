package org.lockvisor.scheduler.builtin;

import org.lockvisor.core.sim.Simulation;
import org.lockvisor.machine.Cpu;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.MigrationCause;
import org.lockvisor.machine.SchedStats;
import org.lockvisor.machine.Task;

/**
 * {@link CfsScheduler}'s load balancing across its {@link SchedDomains}, after kernel/sched/fair.c
 * of Linux 3.0–3.15 and 4.8:
 *
 * <ul>
 *   <li>Periodic balancing from the tick ({@code trigger_load_balance}/{@code
 *       rebalance_domains}): per domain, every {@code balance_interval} (times {@code
 *       busy_factor} when busy), {@code load_balance}: {@code should_we_balance} (the first idle
 *       CPU of the local group, else its first CPU), {@code
 *       find_busiest_group} (overloaded groups first, {@code imbalance_pct}, {@code
 *       calculate_imbalance} with {@code fix_small_imbalance}), {@code find_busiest_queue},
 *       {@code detach_tasks} (least recently run first, skipping the running, pinned and
 *       cache-hot tasks — {@code task_hot}: ran within {@code sysctl_sched_migration_cost} 0.5 ms
 *       — unless balancing failed more than {@code cache_nice_tries} times; at most half a task's
 *       load over the imbalance), with {@code balance_interval} doubling while balanced and
 *       {@code nr_balance_failed}.
 *   <li>Active balance ({@code active_load_balance_cpu_stop}): after more than {@code
 *       cache_nice_tries + 2} failures the busiest CPU's stopper pushes its running task away.
 *   <li>Nohz idle balancing ({@code nohz_kick_needed}/{@code nohz_idle_balance}): a busy CPU
 *       with two or more tasks (or a busy SMT sibling) kicks the first tick-stopped idle CPU,
 *       which balances on behalf of every idle CPU whose balance is due.
 *   <li>Newidle balancing ({@code idle_balance}): a CPU going idle balances its domains bottom
 *       up with {@code CPU_NEWLY_IDLE} unless its {@code avg_idle} (updated at each wakeup of an
 *       idle CPU as in {@code ttwu_do_wakeup}, clamped at twice the migration cost) is below
 *       {@code sysctl_sched_migration_cost} or, in era 4.8 (3.16+, 4486edd12b5a), the root
 *       domain is not overloaded ({@code rd->overload}: some runqueue had two tasks since the
 *       last top-level balance), a flag this class owns.
 * </ul>
 *
 * <p>Group capacity is one task per CPU, one per core for SMT groups ({@code smt_gain} 1178 over
 * two threads rounds to 1); the cost of balancing itself ({@code max_newidle_lb_cost}) is not
 * charged.
 *
 * <p>With balancing switched off ({@link CfsScheduler#disableBalancing}) only the model's earlier
 * newidle pull of the longest-waiting task remains ({@link #legacyIdlePull}). One per {@link
 * CfsScheduler}, created when it joins its kernel; allocates nothing per balance pass.
 *
 * <p>Split out of {@link CfsScheduler}: the runqueues it balances and {@code rd->overload} are read and changed through {@link CfsRunqueues}, never the scheduler.
 */
final class CfsLoadBalancer {
  /** sysctl_sched_migration_cost: task_hot threshold and the avg_idle gate of idle_balance. */
  static final long MIGRATION_COST_NS = 500_000L;
  /** sysctl_sched_nr_migrate: most tasks one load_balance pass looks at. */
  private static final int NR_MIGRATE = 32;
  private static final int CPU_NOT_IDLE = 0;
  private static final int CPU_IDLE = 1;
  private static final int CPU_NEWLY_IDLE = 2;

  private final CfsRunqueues cfs;
  private final CfsHrtick hrtick;
  private final Kernel kernel;
  private final Simulation sim;
  private final CfsRq[] rqs;
  private final SchedStats stats;
  private final CfsEra era;
  private final boolean pelt;
  private long nohzNextBalance;

  CfsLoadBalancer(CfsRunqueues cfs, CfsHrtick hrtick, Kernel kernel, CfsRq[] rqs, CfsEra era, boolean pelt) {
    this.cfs = cfs;
    this.hrtick = hrtick;
    this.kernel = kernel;
    this.sim = kernel.machine().sim();
    this.rqs = rqs;
    this.stats = kernel.schedStats();
    this.era = era;
    this.pelt = pelt;
  }

  /** trigger_load_balance from {@code rq}'s tick: its own due domains, then a nohz kick if needed. */
  void tick(CfsRq rq, Cpu cpu) {
    long now = sim.now();
    if (now >= rq.nextBalance) {
      rebalanceDomains(rq, CPU_NOT_IDLE, MigrationCause.PERIODIC);
    }
    if (now >= nohzNextBalance && (rq.nrRunning() >= 2 || busySibling(cpu.index()))) {
      nohzIdleBalance();
    }
  }

  /**
   * idle_balance for {@code dst}, a CPU about to go idle: its domains bottom up with {@code
   * CPU_NEWLY_IDLE} unless {@code avg_idle} or (era 4.8) {@code rd->overload} says not to.
   * Returns whether a task was pulled onto {@code dst}.
   */
  boolean idleBalance(CfsRq dst) {
    dst.idleStamp = sim.now();
    if (dst.avgIdle < MIGRATION_COST_NS || (era == CfsEra.LINUX_4_8 && !cfs.overload)) {
      return false;
    }
    SchedDomains d = cfs.domains();
    for (int l = 0; l < d.count(); l++) {
      if (loadBalance(dst, l, CPU_NEWLY_IDLE, MigrationCause.NEWIDLE) > 0) {
        break;
      }
    }
    if (dst.size == 0) {
      return false;
    }
    dst.idleStamp = -1;
    return true;
  }

  /** The model's newidle pull before issue 17: the longest-waiting movable task of the busiest runqueue. */
  Task legacyIdlePull(Cpu cpu, CfsRq dst) {
    CfsRq busiest = null;
    for (CfsRq rq : rqs) {
      if (rq == dst || rq.size == 0 || !hasMovable(rq, cpu.index())) {
        continue;
      }
      if (busiest == null || rq.nrRunning() > busiest.nrRunning()) {
        busiest = rq;
      }
    }
    if (busiest == null) {
      return null;
    }
    long now = sim.now();
    CfsEntity pick = null;
    for (int i = 0; i < busiest.size; i++) {
      CfsEntity se = busiest.heap[i];
      if (!movable(se.task, cpu.index())) {
        continue;
      }
      long wait = now - se.waitStart;
      if (pick == null || wait > now - pick.waitStart || (wait == now - pick.waitStart && se.seq < pick.seq)) {
        pick = se;
      }
    }
    busiest.peltDequeue(pick, sim.now());
    busiest.remove(pick);
    busiest.updateMinVruntime();
    cfs.lengthChanged(busiest);
    Task t = pick.task;
    pick.vruntime = pick.vruntime - busiest.minVruntime + dst.minVruntime;
    dst.peltEnqueue(pick, sim.now());
    dst.migrationsIn++;
    stats.migrated(MigrationCause.NEWIDLE);
    cfs.setNext(dst, pick);
    hrtick.picked(dst);
    cfs.lengthChanged(dst);
    return t;
  }

  /** rebalance_domains for {@code rq}'s CPU: each level whose interval is due runs load_balance. */
  private void rebalanceDomains(CfsRq rq, int idle, MigrationCause cause) {
    SchedDomains d = cfs.domains();
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
    for (CfsRq rq : rqs) {
      if (rq.curr != null || rq.size > 0 || !kernel.cpu(rq.index).isIdle()) {
        continue;
      }
      any = true;
      if (now >= rq.nextBalance) {
        rebalanceDomains(rq, CPU_IDLE, MigrationCause.NOHZ);
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
  private int loadBalance(CfsRq dst, int l, int idle, MigrationCause cause) {
    SchedDomains d = cfs.domains();
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
        CfsRq rq = rqs[i];
        int n = rq.nrRunning();
        load += rq.cpuLoad();
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
      cfs.overload = anyOverloaded; // the root domain's update_sd_lb_stats
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
        CfsRq busiest = findBusiestQueue(busiestStart, Math.min(end, busiestStart + g), imbalance, cpu);
        if (busiest != null && busiest.nrRunning() > 1) {
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
    SchedDomains d = cfs.domains();
    if (d.count() == 0 || !"SMT".equals(d.level(0).name())) {
      return false;
    }
    for (int i = d.spanStart(0, cpu); i < d.spanEnd(0, cpu); i++) {
      if (i != cpu && rqs[i].nrRunning() > 0) {
        return true;
      }
    }
    return false;
  }

  /** should_we_balance: the first idle CPU of the local group, else the group's first CPU. */
  private boolean shouldWeBalance(int cpu, int localStart, int localEnd) {
    for (int i = localStart; i < localEnd; i++) {
      if (rqs[i].nrRunning() == 0 && kernel.cpu(i).isIdle()) {
        return i == cpu;
      }
    }
    return localStart == cpu;
  }

  /** find_busiest_queue: the most loaded runqueue, skipping one whose single task outweighs the imbalance. */
  private CfsRq findBusiestQueue(int gs, int ge, long imbalance, int dstCpu) {
    CfsRq best = null;
    long bestLoad = -1;
    for (int i = gs; i < ge; i++) {
      CfsRq rq = rqs[i];
      if (i == dstCpu) {
        continue;
      }
      long wl = rq.cpuLoad();
      if (rq.nrRunning() == 1 && wl > imbalance) {
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
  private int detachTasks(CfsRq src, CfsRq dst, long imbalance, SchedDomains.Level level, int l,
      MigrationCause cause) {
    long now = sim.now();
    int moved = 0;
    int looked = 0;
    long lastPicked = Long.MIN_VALUE;
    int lastSeq = -1;
    int limit = Math.min(NR_MIGRATE, src.nrRunning());
    boolean hotOk = dst.nrBalanceFailed[l] > level.cacheNiceTries();
    while (imbalance > 0 && looked < limit && src.size > 0) {
      // the next least recently run entity after (lastPicked, lastSeq) in (lastRanAt, seq) order
      CfsEntity pick = null;
      for (int i = 0; i < src.size; i++) {
        CfsEntity se = src.heap[i];
        long ran = se.lastRanAt;
        if (ran < lastPicked || (ran == lastPicked && se.seq <= lastSeq)) {
          continue;
        }
        if (pick == null || ran < pick.lastRanAt || (ran == pick.lastRanAt && se.seq < pick.seq)) {
          pick = se;
        }
      }
      if (pick == null) {
        break;
      }
      looked++;
      lastPicked = pick.lastRanAt;
      lastSeq = (int) pick.seq;
      long w = pick.load(pelt); // task_h_load: the root group's se.avg.load_avg in 4.8
      if (!movable(pick.task, dst.index)) {
        continue;
      }
      if (!hotOk && now - pick.lastRanAt < MIGRATION_COST_NS && pick.lastRanAt > 0) {
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
  private void migrate(CfsRq src, CfsRq dst, CfsEntity se, MigrationCause cause) {
    cfs.updateCurr(src);
    src.peltDequeue(se, sim.now());
    src.remove(se);
    src.updateMinVruntime();
    Task t = se.task;
    se.vruntime = se.vruntime - src.minVruntime + dst.minVruntime;
    cfs.updateCurr(dst);
    dst.peltEnqueue(se, sim.now());
    cfs.insert(dst, se);
    kernel.moveQueued(t, kernel.cpu(dst.index));
    dst.migrationsIn++;
    stats.migrated(cause);
    if (dst.nrRunning() >= 2) {
      cfs.overload = true;
    }
    cfs.lengthChanged(src);
    cfs.lengthChanged(dst);
    Cpu c = kernel.cpu(dst.index);
    if (c.isIdle() || (dst.curr != null && cfs.wakeupPreempt(c, dst.curr.task, t))) {
      c.reschedule(); // check_preempt_curr after attach_task
    }
  }

  /** active_load_balance_cpu_stop on {@code rq}: push the task that was running to the idle CPU. */
  void activeBalance(CfsRq rq) {
    int target = rq.activeBalanceTarget;
    rq.activeBalanceTarget = -1;
    CfsEntity se = rq.lastPut;
    CfsRq dst = rqs[target];
    if (se == null || se.heapIndex < 0 || se.rqIndex != rq.index || !movable(se.task, target) || dst.nrRunning() > 0) {
      return;
    }
    migrate(rq, dst, se, MigrationCause.ACTIVE);
  }

  static boolean movable(Task t, int cpuIndex) {
    int pin = t.pinnedCpu();
    return pin < 0 || pin == cpuIndex;
  }

  private static boolean hasMovable(CfsRq rq, int cpuIndex) {
    for (int i = 0; i < rq.size; i++) {
      if (movable(rq.heap[i].task, cpuIndex)) {
        return true;
      }
    }
    return false;
  }
}

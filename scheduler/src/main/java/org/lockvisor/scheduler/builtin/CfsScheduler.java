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
 *   <li>Placement of a waking task ({@code select_task_rq_fair}, reduced to {@code
 *       select_idle_sibling}): its previous CPU if idle, else an idle CPU sharing that CPU's
 *       cache, else the previous CPU; pinning wins. A new task goes to the least loaded CPU
 *       ({@code find_idlest_cpu}).
 *   <li>{@code idle_balance}: a CPU about to go idle pulls the task that has waited longest
 *       from the busiest runqueue of its kernel (pinned tasks stay).
 * </ul>
 *
 * <p>{@code yield_to} ({@code yield_to_task_fair}, used by KVM's directed yield) sets the
 * target as the next buddy of its runqueue and the yielding task as the skip buddy of its own;
 * {@code pick_next_entity} prefers the next buddy, and skips the skip buddy for the second
 * entity, as long as that is not more than a wakeup granularity of vruntime unfair to the
 * leftmost ({@code wakeup_preempt_entity < 1}). The last buddy (wakeup preemption) is left out.
 *
 * <p>Left out: the last buddy, periodic
 * load balancing, PELT load tracking, and (unless {@link #enableWakeAffine}) wake_affine, cgroups. The task clock includes steal
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

  /** sd->imbalance_pct of the default sched domains (sd_init). */
  private static final int IMBALANCE_PCT = 125;
  /** record_wakee halves the flips once a second (HZ jiffies). */
  private static final long WAKEE_FLIP_DECAY_NS = 1_000_000_000L;

  private final long baseLatencyNs;
  private final long baseMinGranularityNs;
  private final long baseWakeupGranularityNs;
  private final Scaling scaling;
  private final boolean hrtick;
  private boolean wakeAffine;

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
   * Turns on {@code wake_affine} for waking tasks (off by default, so existing experiments keep
   * their placement): {@code select_task_rq_fair} of Linux 4.x records the waker's wakee flips
   * ({@code record_wakee}), and unless {@code wake_wide} says the waker/wakee pair fans out wider
   * than the LLC, lets {@code wake_affine} choose the waker's CPU over the wakee's previous one
   * when the waker's runqueue, with the wakee added, is not more loaded than the previous CPU's
   * by more than half of {@code imbalance_pct} (125: 12 %); {@code select_idle_sibling} then
   * starts from that target. Load is the runqueue's runnable weight at that instant, standing in
   * for PELT's {@code runnable_load_avg} (wake_idx 0); sync wakeups are treated as plain ones.
   * Call before the kernel is created.
   */
  public CfsScheduler enableWakeAffine() {
    checkState(kernel == null, "enable wake_affine before the kernel starts");
    this.wakeAffine = true;
    return this;
  }

  public boolean wakeAffine() {
    return wakeAffine;
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
    insert(rq, se);
    if (hrtick && rq.curr != null && nrRunning(rq) < nrLatency) {
      armHrtick(rq); // hrtick_update: the slice of curr shrank
    }
  }

  @Override
  public void dequeue(Cpu cpu, Task task) {
    Rq rq = rqs[cpu.index()];
    Entity se = entity(task);
    checkState(se.heapIndex >= 0 && se.rqIndex == rq.index, "%s is not queued on %s", task, cpu);
    updateCurr(rq);
    remove(rq, se);
    updateMinVruntime(rq);
  }

  @Override
  public void putPrev(Cpu cpu, Task prev) {
    Rq rq = rqs[cpu.index()];
    checkState(rq.curr != null && rq.curr.task == prev, "%s put back on %s but current is %s", prev, cpu, rq.curr);
    updateCurr(rq);
    rq.curr = null;
    cancelHrtick(rq);
    insert(rq, entity(prev));
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
      rq.curr = null;
      updateMinVruntime(rq);
    }
    cancelHrtick(rq);
    if (rq.size == 0) {
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
    return se.task;
  }

  @Override
  public Cpu selectCpu(Task task, Cpu wakerCpu) {
    if (task.pinnedCpu() >= 0) {
      return kernel.cpu(task.pinnedCpu());
    }
    Cpu prev = task.cpu();
    if (prev == null || prev.kernel() != kernel || !entity(task).placed) {
      return idlest(wakerCpu);
    }
    Cpu target = prev;
    if (wakeAffine && wakerCpu != null && wakerCpu.kernel() == kernel) {
      Task waker = wakerCpu.current();
      boolean wantAffine = true;
      if (waker != null && waker != wakerCpu.idleTask() && waker.kernel() == kernel) {
        recordWakee(entity(waker), task);
        wantAffine = !wakeWide(entity(waker), entity(task));
      }
      if (wantAffine && wakerCpu != prev && affine(wakerCpu, prev, task)) {
        target = wakerCpu;
      }
    }
    // select_idle_sibling(p, prev, target)
    if (availableIdle(target)) {
      return target;
    }
    if (target != prev && kernel.sharesCache(prev, target) && availableIdle(prev)) {
      return prev;
    }
    int n = kernel.cpuCount();
    for (int i = 1; i < n; i++) {
      Cpu c = kernel.cpu((target.index() + i) % n);
      if (kernel.sharesCache(c, target) && availableIdle(c)) {
        return c;
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

  /** wake_wide: both fan out to at least an LLC's worth of partners, one by that factor more. */
  private boolean wakeWide(Entity waker, Entity wakee) {
    int factor = Math.max(1, Math.min(kernel.cpuCount(), kernel.config().llcSize()));
    int master = Math.max(waker.wakeeFlips, wakee.wakeeFlips);
    int slave = Math.min(waker.wakeeFlips, wakee.wakeeFlips);
    return slave >= factor && master >= (long) slave * factor;
  }

  /**
   * wake_affine (4.x, no cgroups, equal capacities): {@code 100 × (this_load + w) <= (100 +
   * (imbalance_pct - 100) / 2) × (prev_load + w)}, or an empty waker runqueue.
   */
  private boolean affine(Cpu thisCpu, Cpu prevCpu, Task p) {
    long thisLoad = load(rqs[thisCpu.index()]);
    long prevLoad = load(rqs[prevCpu.index()]);
    if (thisLoad <= 0) {
      return true;
    }
    long w = p.weight;
    return 100 * (thisLoad + w) <= (100 + (IMBALANCE_PCT - 100) / 2) * (prevLoad + w);
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
    if (nrRunning(rq) > 1) {
      checkPreemptTick(cpu, rq);
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
    remove(busiest, pick);
    updateMinVruntime(busiest);
    Task t = pick.task;
    t.vruntime = t.vruntime - busiest.minVruntime + dst.minVruntime;
    dst.migrationsIn++;
    setNext(dst, pick);
    return t;
  }

  /** Tasks pulled to {@code cpu} by idle balancing so far. */
  public long idlePulls(Cpu cpu) {
    return rqs[cpu.index()].migrationsIn;
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

  private boolean availableIdle(Cpu c) {
    Rq rq = rqs[c.index()];
    return c.isIdle() && rq.size == 0 && rq.curr == null;
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
    int pin = se.task.pinnedCpu();
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

    Entity(Task task) {
      this.task = task;
    }

    @Override
    public String toString() {
      return task.toString();
    }
  }
}

package org.lockvisor.scheduler.builtin;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;

import org.lockvisor.core.sim.Simulation;
import org.lockvisor.machine.Cpu;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.SchedStats;
import org.lockvisor.machine.Task;

/**
 * The state every part of {@link CfsScheduler} shares, and the runqueue operations each of them
 * applies (kernel/sched/fair.c, 2.6.38–6.5): the per-CPU {@link CfsRq}s, the tunables after
 * scaling, the scheduling domains, {@code rd->overload}; {@code update_curr}, {@code
 * __enqueue_entity}, {@code set_next_entity}, {@code sched_slice}, {@code add_nr_running}/{@code
 * sub_nr_running} and {@code check_preempt_wakeup}. Split out of {@link CfsScheduler} so that its parts
 * ({@link CfsWakePlacement}, {@link CfsLoadBalancer}, {@link CfsHrtick}) read and change this
 * state without calling back into the scheduler: each of them and the scheduler depend on this
 * class, which depends on none of them.
 */
final class CfsRunqueues {
  /** {@code NICE_0_LOAD}: the weight of a nice-0 task (kernel/sched/sched.h). */
  static final int NICE_0_LOAD = 1024;

  private final Kernel kernel;
  private final Simulation sim;
  private final CfsRq[] rqs;
  private final SchedStats stats;
  private final CfsEra era;
  private final long latencyNs;
  private final long minGranularityNs;
  private final long wakeupGranularityNs;
  private final int nrLatency;
  private SchedDomains domains;
  private long enqueueSeq;
  /** rd->overload (4.8): some runqueue had two or more tasks since the last top-level balance. */
  boolean overload;

  CfsRunqueues(Kernel kernel, CfsRq[] rqs, CfsEra era, long latencyNs, long minGranularityNs,
      long wakeupGranularityNs, int nrLatency) {
    this.kernel = kernel;
    this.sim = kernel.machine().sim();
    this.rqs = rqs;
    this.stats = kernel.schedStats();
    stats.ensureCpus(kernel.cpuCount());
    this.era = era;
    this.latencyNs = latencyNs;
    this.minGranularityNs = minGranularityNs;
    this.wakeupGranularityNs = wakeupGranularityNs;
    this.nrLatency = nrLatency;
  }

  /** The scheduling domains, built from the kernel's topology at first use. */
  SchedDomains domains() {
    if (domains == null) {
      domains = new SchedDomains(kernel.topology(), kernel.cpuCount(), era);
      for (CfsRq rq : rqs) {
        rq.initBalance(domains);
      }
    }
    return domains;
  }

  /** add_nr_running/sub_nr_running: the rd->overload flag and the nr_running statistics. */
  void lengthChanged(CfsRq rq) {
    int n = rq.nrRunning();
    if (n >= 2) {
      overload = true; // add_nr_running (4.x)
    }
    stats.nrRunning(rq.index, n, sim.now());
  }

  /** __enqueue_entity: {@code se} joins {@code rq}'s timeline behind equal keys already there. */
  void insert(CfsRq rq, CfsEntity se) {
    rq.insert(se, enqueueSeq++, sim.now());
  }

  /**
   * set_next_entity: {@code se} becomes {@code rq}'s current entity; its exec clocks start. The
   * caller arms the hrtick timer ({@link CfsHrtick#picked}).
   */
  void setNext(CfsRq rq, CfsEntity se) {
    rq.curr = se;
    se.rqIndex = rq.index;
    se.execStart = sim.now();
    se.execStartSteal = kernel.cpu(rq.index).stealClock();
    se.prevSumExecRuntime = se.sumExecRuntime;
  }

  /** update_curr: charges the current entity's execution since its clock last started. */
  void updateCurr(CfsRq rq) {
    CfsEntity curr = rq.curr;
    if (curr == null) {
      return;
    }
    long now = sim.now();
    long delta = now - curr.execStart;
    if (kernel.stealTimeAccounting()) {
      // update_rq_clock_task: steal time is not the task's execution time
      long steal = kernel.cpu(rq.index).stealClock();
      delta -= steal - curr.execStartSteal;
      curr.execStartSteal = steal;
    }
    if (delta <= 0) {
      curr.execStart = now;
      return;
    }
    curr.execStart = now;
    curr.sumExecRuntime += delta;
    curr.lastRanAt = now;
    curr.vruntime += calcDeltaFair(delta, curr.task.weight);
    rq.updateMinVruntime();
  }

  /** sched_slice for an entity of {@code weight}; {@code onRq} says whether it is already counted. */
  long slice(CfsRq rq, int weight, boolean onRq) {
    int nr = rq.nrRunning() + (onRq ? 0 : 1);
    long load = rq.load() + (onRq ? 0 : weight);
    long period = nr > nrLatency ? nr * minGranularityNs : latencyNs;
    return load == 0 ? period : (long) ((double) period * weight / load);
  }

  /** calc_delta_fair: {@code delta} of execution as vruntime for a task of {@code weight}. */
  static long calcDeltaFair(long delta, int weight) {
    return weight == NICE_0_LOAD ? delta : delta * NICE_0_LOAD / weight;
  }

  /** check_preempt_wakeup: whether {@code woken} preempts {@code current} on {@code cpu}. */
  boolean wakeupPreempt(Cpu cpu, Task current, Task woken) {
    CfsRq rq = rqs[cpu.index()];
    if (rq.curr == null || rq.curr.task != current) {
      return false;
    }
    updateCurr(rq);
    long vdiff = rq.curr.vruntime - entity(woken).vruntime;
    if (vdiff <= 0) {
      return false;
    }
    return vdiff > calcDeltaFair(wakeupGranularityNs, woken.weight);
  }

  /** The task's entity, created at its first use by this scheduler. */
  CfsEntity entity(Task t) {
    if (t.schedData instanceof CfsEntity e) {
      return e;
    }
    checkState(t.kernel() == kernel, "%s belongs to kernel %s, not %s", t, t.kernel(), kernel);
    checkArgument(t.weight > 0, "%s has a non-positive weight: %s", t, t.weight);
    CfsEntity e = new CfsEntity(t);
    t.schedData = e;
    return e;
  }
}

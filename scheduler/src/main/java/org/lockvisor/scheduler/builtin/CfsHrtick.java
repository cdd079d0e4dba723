package org.lockvisor.scheduler.builtin;

import org.lockvisor.core.sim.EventHandler;
import org.lockvisor.core.sim.EventQueue;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Task;

/**
 * {@link CfsScheduler}'s high-resolution preemption tick (sched_feat {@code HRTICK}, off by
 * default in Linux), after kernel/sched/fair.c {@code hrtick_start_fair}/{@code hrtick_update}
 * and kernel/sched/core.c {@code hrtick_start}/{@code hrtick} (2.6.38–6.5): when a runqueue has
 * more than one task, a timer at the current task's slice expiry (at least {@link
 * #HRTICK_MIN_NS}) preempts exactly there instead of at the next tick ({@code
 * entity_tick} with {@code queued=1}). One timer per runqueue, re-armed at each pick and enqueue;
 * allocates nothing per event. Reads the runqueues through {@link CfsRunqueues}, never the
 * scheduler.
 *
 * <p>Split out of {@link CfsScheduler}.
 */
final class CfsHrtick implements EventHandler {
  /** hrtick_start: the shortest timer the kernel arms. */
  static final long HRTICK_MIN_NS = 10_000;

  private final CfsRunqueues cfs;
  private final boolean enabled;
  private final Kernel kernel;
  private final Simulation sim;
  private final CfsRq[] rqs;

  CfsHrtick(CfsRunqueues cfs, Kernel kernel, CfsRq[] rqs, boolean enabled) {
    this.cfs = cfs;
    this.enabled = enabled;
    this.kernel = kernel;
    this.sim = kernel.machine().sim();
    this.rqs = rqs;
  }

  /** hrtick(): the slice of the task it was armed for is over. */
  @Override
  public void onEvent(int cpuIndex, long taskId) {
    CfsRq rq = rqs[cpuIndex];
    rq.hrtickHandle = EventQueue.NO_EVENT;
    if (rq.curr == null || rq.curr.task.id() != taskId) {
      return;
    }
    cfs.updateCurr(rq);
    // entity_tick(queued=1): the slice is over; schedule() would pick curr again if alone
    if (rq.size > 0) {
      kernel.cpu(cpuIndex).reschedule();
    }
  }

  /** set_next_entity's hrtick: arms the timer for {@code rq}'s new current entity when the feature is on. */
  void picked(CfsRq rq) {
    if (enabled) {
      arm(rq);
    }
  }

  /** hrtick_start_fair: arms the timer at the end of the current task's slice. */
  void arm(CfsRq rq) {
    cancel(rq);
    if (rq.curr == null || rq.nrRunning() <= 1) {
      return;
    }
    CfsEntity se = rq.curr;
    Task t = se.task;
    long ran = se.sumExecRuntime + (sim.now() - se.execStart) - se.prevSumExecRuntime;
    long delta = cfs.slice(rq, t.weight, true) - ran;
    if (delta < 0) {
      kernel.cpu(rq.index).reschedule();
      return;
    }
    rq.hrtickHandle = sim.schedule(Math.max(delta, HRTICK_MIN_NS), this, rq.index, t.id());
  }

  /** hrtick_clear. */
  void cancel(CfsRq rq) {
    if (rq.hrtickHandle != EventQueue.NO_EVENT) {
      sim.cancel(rq.hrtickHandle);
      rq.hrtickHandle = EventQueue.NO_EVENT;
    }
  }
}

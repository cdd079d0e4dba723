package org.lockvisor.scheduler.builtin;

import org.lockvisor.machine.Task;

/**
 * A PowerVM virtual processor's entitlement state for {@link PowervmDispatchScheduler}: its
 * entitled time per dispatch window, what is left of it in the current window (refilled at
 * every window boundary; unused entitlement does not carry over), when it was last charged, and
 * (smt &gt; 1) its threads and home core.
 *
 * <p>Split out of {@link PowervmDispatchScheduler}.
 */
final class PowervmVp {
  static final long UNLIMITED = Long.MAX_VALUE;

  final Task task;
  final long entitledNs;
  long remainingNs;
  long window = Long.MIN_VALUE;
  long runStart;
  int cpuIndex; // smt > 1: the home core
  PowervmHwThread[] threads; // smt > 1 only
  int nQueued; // smt > 1: threads waiting for the core
  int nRunning; // smt > 1: threads on hardware threads of the core
  boolean waiting; // smt > 1: in its core's ready queue

  PowervmVp(Task task, long entitledNs) {
    this.task = task;
    this.entitledNs = entitledNs;
  }

  /** Entitlement left to a dispatched VP, counting its run since it was last charged. */
  long currentRemaining(long now, long windowNs) {
    refresh(now, windowNs);
    if (entitledNs == UNLIMITED) {
      return UNLIMITED;
    }
    return Math.max(0, remainingNs - (now - runStart));
  }

  long remaining(long now, long windowNs) {
    refresh(now, windowNs);
    return remainingNs;
  }

  /** Refills the entitlement when a new window has started since it was last charged. */
  void refresh(long now, long windowNs) {
    long w = now / windowNs;
    if (window != w) {
      window = w;
      remainingNs = entitledNs;
      if (runStart < w * windowNs) {
        runStart = w * windowNs; // time before the boundary belonged to the old window
      }
    }
  }

  /** Charges the dispatched VP's time since it was last charged. */
  void charge(long now, long windowNs) {
    refresh(now, windowNs);
    long used = now - runStart;
    runStart = now;
    if (entitledNs != UNLIMITED && used > 0) {
      remainingNs = Math.max(0, remainingNs - used);
    }
  }

  @Override
  public String toString() {
    return task.toString();
  }
}

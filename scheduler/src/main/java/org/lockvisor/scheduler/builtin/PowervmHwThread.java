package org.lockvisor.scheduler.builtin;

import org.lockvisor.machine.Task;

/**
 * One hardware thread of a PowerVM VP in gang dispatch (smt &gt; 1): a guest vCPU's host thread,
 * its VP and its slot on the VP's core ({@link PowervmGang}).
 *
 * <p>Split out of {@link PowervmGang}, so a VP names its threads without the gang.
 */
final class PowervmHwThread {
  final Task task;
  final PowervmVp vp;
  final int slot;
  boolean queued;

  PowervmHwThread(Task task, PowervmVp vp, int slot) {
    this.task = task;
    this.vp = vp;
    this.slot = slot;
  }

  @Override
  public String toString() {
    return task.toString();
  }
}

package org.lockvisor.machine;

/** The kernel's {@code task->state} (plus DEAD for exited tasks). */
public enum TaskState {
  RUNNING,
  INTERRUPTIBLE,
  UNINTERRUPTIBLE,
  DEAD
}

package org.lockvisor.machine.config;

/**
 * When try_to_wake_up queues the wakee on the target CPU's wake list and sends a reschedule IPI
 * instead of taking the target runqueue lock itself (kernel/sched/core.c ttwu_queue).
 */
public enum TtwuQueueMode {
  /** Never queue: the waker enqueues on the remote runqueue directly. */
  NEVER,
  /** 3.0–3.4: TTWU_QUEUE for any remote CPU. */
  ANY_REMOTE,
  /** 3.5+: only when the CPUs do not share the last-level cache. */
  CROSS_LLC
}

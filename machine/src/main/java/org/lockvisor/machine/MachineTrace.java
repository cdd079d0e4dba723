package org.lockvisor.machine;


/** Machine-level events for tracing, statistics and invariant checks; all default to nothing. */
public interface MachineTrace {

  MachineTrace NONE = new MachineTrace() {};

  /**
   * Whether the machine calls these hooks at all. Always true, except with {@code
   * -Dlockvisor.trace.hooks=false}, which exists only to measure what the hooks cost while no trace
   * is installed (the JIT folds this constant and drops the calls; a trace installed then records
   * nothing). See docs/performance.md.
   */
  boolean HOOKS = !"false".equals(System.getProperty("lockvisor.trace.hooks"));

  default void onSwitch(Cpu cpu, Task prev, Task next) {}

  default void onWake(Task task, Cpu target) {}

  default void onExit(VcpuTask vcpu, String reason, long start, long durationNs) {}

  /**
   * A spin of {@code task} charged to {@code symbol} ended (hand-off, bail-out or budget); it
   * started at {@code start} and may include time the task was frozen (its CPU stopped).
   */
  default void onSpin(Task task, int symbol, long start, long end) {}

  /** {@code holder} released {@code lock}, which it held from {@code start} to {@code end}. */
  default void onLockHeld(Task holder, String lock, long start, long end) {}

  /**
   * {@code waiter} acquired {@code lock} after waiting for it (spinning, queued or asleep) from
   * {@code start} to {@code end}; uncontended acquisitions are not reported.
   */
  default void onLockWaited(Task waiter, String lock, long start, long end) {}

  /** A reschedule IPI was sent from {@code from} to {@code to}. */
  default void onIpi(Cpu from, Cpu to) {}
}

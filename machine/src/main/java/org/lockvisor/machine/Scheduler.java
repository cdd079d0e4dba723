package org.lockvisor.machine;

/**
 * A scheduling policy for one kernel (the host, or one guest). The machine calls it; it keeps
 * its runqueues in {@link Cpu#rqData} and per-task data in the public fields of {@link Task}.
 *
 * <p>Convention: the current task of a CPU is not in the runqueue structure (like CFS's
 * {@code curr}); {@link #putPrev} puts a still-runnable current task back, {@link #pickNext}
 * removes and returns the next one.
 */
public interface Scheduler {

  /** Called once with the kernel before any other call. */
  void init(Kernel kernel);

  /** Adds a runnable task to {@code cpu}'s runqueue; {@code wakeup} for wakeups of sleepers. */
  void enqueue(Cpu cpu, Task task, boolean wakeup);

  /** Removes a task that is in the runqueue (not current). */
  void dequeue(Cpu cpu, Task task);

  /** Puts the current task back after it was preempted or yielded while still runnable. */
  void putPrev(Cpu cpu, Task prev);

  /** Removes and returns the next task to run on {@code cpu}, or null to run the idle task. */
  Task pickNext(Cpu cpu);

  /** Where a waking task should be enqueued (wakeup placement). */
  Cpu selectCpu(Task task, Cpu wakerCpu);

  /** Whether {@code woken}, just enqueued on {@code cpu}, should preempt {@code current}. */
  boolean wakeupPreempt(Cpu cpu, Task current, Task woken);

  /** The periodic tick on {@code cpu}; may call {@link Cpu#reschedule()}. */
  void tick(Cpu cpu, Task current);

  /** Called when {@code task} starts running on {@code cpu} (after the switch). */
  default void switchedIn(Cpu cpu, Task task) {}

  /** Number of runnable tasks waiting in {@code cpu}'s runqueue (excluding current). */
  int runnable(Cpu cpu);

  /**
   * Runnable tasks parked on {@code cpu} that may not run for now (a capped partition that used
   * its entitlement; like CFS bandwidth throttling, where {@code nr_running} drops while the task
   * stays {@code on_rq}). They are on a runqueue for the machine but not in {@link #runnable}.
   */
  default int throttled(Cpu cpu) {
    return 0;
  }

  /**
   * {@code yield_to(target, preempt)} of the sched class ({@code yield_to_task_fair}): boost
   * {@code target}, runnable and queued on its runqueue, so it runs next there, and let {@code
   * current} (running on {@code cpu}) yield. The kernel then reschedules both CPUs. Returns
   * whether the policy boosted the target; policies without it return false (the default), so
   * a directed yield does nothing.
   */
  default boolean yieldTo(Cpu cpu, Task current, Task target) {
    return false;
  }

  /** Balancing hook, called when {@code cpu} is about to go idle; may move a task to it. */
  default Task balanceIdle(Cpu cpu) {
    return null;
  }
}

package org.lockvisor.scheduler.builtin;

import org.lockvisor.machine.Task;

/**
 * A task's {@code struct sched_entity} for {@link CfsScheduler}: vruntime and the exec clocks
 * ({@code exec_start}, {@code sum_exec_runtime}), its place in a {@link CfsRq}'s timeline, the
 * wakee flips of {@code record_wakee} and its PELT average; the load weight is the task's ({@link
 * Task#weight}). Allocated once per task, at its first enqueue, and kept in {@code
 * Task.schedData}.
 */
final class CfsEntity {
  final Task task;
  /** se->vruntime: weighted execution time, the timeline's key. */
  long vruntime;
  /** se->exec_start: when the clock of the current entity last started (simulation time). */
  long execStart;
  /** The CPU's steal clock at {@link #execStart} (for steal-time accounting). */
  long execStartSteal;
  /** se->sum_exec_runtime and its value when the entity was last picked. */
  long sumExecRuntime;
  long prevSumExecRuntime;
  /** When update_curr last charged the entity (task_hot's exec_start of the detach path). */
  long lastRanAt;
  int heapIndex = -1;
  long seq;
  long waitStart;
  int rqIndex = -1;
  boolean placed;
  Task lastWakee;
  int wakeeFlips;
  long wakeeFlipDecayTs;
  /** PELT load_sum / load_avg of the entity (era 4.8). */
  final Pelt avg = new Pelt();

  CfsEntity(Task task) {
    this.task = task;
    // init_entity_runnable_average (4.8): a new task starts with its full weight
    avg.avg = task.weight;
    avg.sum = (long) task.weight * Pelt.LOAD_AVG_MAX;
    avg.periodContrib = 1023;
  }

  /** Its load for placement and balancing: 4.8 {@code se.avg.load_avg} as last updated, 3.0 its weight. */
  long load(boolean pelt) {
    return pelt ? avg.avg : task.weight;
  }

  /** The timeline order: (vruntime, enqueue sequence). */
  static boolean before(CfsEntity a, CfsEntity b) {
    long va = a.vruntime;
    long vb = b.vruntime;
    return va < vb || (va == vb && a.seq < b.seq);
  }

  @Override
  public String toString() {
    return task.toString();
  }
}

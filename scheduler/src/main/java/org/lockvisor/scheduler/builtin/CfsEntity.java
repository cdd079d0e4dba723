package org.lockvisor.scheduler.builtin;

import org.lockvisor.machine.Task;

/**
 * A task's {@code struct sched_entity} bookkeeping for {@link CfsScheduler} beyond the public
 * fields of {@link Task} (vruntime, weight, exec clocks): its place in a {@link CfsRq}'s
 * timeline, the wakee flips of {@code record_wakee} and its PELT average. Allocated once per task,
 * at its first enqueue, and kept in {@code Task.schedData}.
 */
final class CfsEntity {
  final Task task;
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
    long va = a.task.vruntime;
    long vb = b.task.vruntime;
    return va < vb || (va == vb && a.seq < b.seq);
  }

  @Override
  public String toString() {
    return task.toString();
  }
}

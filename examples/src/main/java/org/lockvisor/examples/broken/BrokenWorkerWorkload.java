package org.lockvisor.examples.broken;

import com.google.common.collect.ImmutableMap;
import java.util.function.Predicate;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockFactory.LockKind;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Op;
import org.lockvisor.machine.Ops;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Task;
import org.lockvisor.machine.TaskState;
import org.lockvisor.machine.WaitQueue;
import org.lockvisor.workloads.spi.Workload;
import org.lockvisor.workloads.spi.WorkloadContext;

/**
 * A producer queues work items in bursts for a worker thread, as {@code vhost_work_queue} does
 * for the vhost worker: take the list lock, add, drop it, {@code wake_up} the wait queue.
 *
 * <p>The worker, with {@code order: check-then-sleep}, has the classic bug: it tests the list
 * and only then joins the wait queue and sets {@code TASK_INTERRUPTIBLE}. An item queued in
 * between finds nobody on the wait queue to wake, and the worker sleeps with work pending until
 * the next burst. {@code order: prepare-then-check} is the kernel's order ({@code
 * prepare_to_wait}, set the state, then test), which is immune. In the unperturbed schedule the
 * producer's items fall outside the window; {@code lockvisor explore} perturbs the schedule
 * until one falls inside, and the lost-wakeup detector reports it.
 */
final class BrokenWorkerWorkload implements Workload {
  private final String name;
  private final boolean broken;
  private final int burst;
  private final long gapNs;
  private final long periodNs;
  private final long processNs;
  private final long windowNs;
  private final WaitQueue wq;
  private final Predicate<Task> workPending = t -> pending() > 0;
  private KernelLock listLock;
  private long queued;
  private long done;
  private long producedSince;
  private long doneSince;

  BrokenWorkerWorkload(String name, boolean broken, int burst, long gapNs, long periodNs, long processNs,
      long windowNs) {
    this.name = name;
    this.broken = broken;
    this.burst = burst;
    this.gapNs = gapNs;
    this.periodNs = periodNs;
    this.processNs = processNs;
    this.windowNs = windowNs;
    this.wq = new WaitQueue(name + ".worker_wait");
  }

  private long pending() {
    return queued - done;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String model() {
    return BrokenWorkerFactory.NAME;
  }

  @Override
  public void start(WorkloadContext ctx) {
    Kernel guest = ctx.vm().guest();
    listLock = ctx.locks().create(guest, ctx.vm().name() + "/" + name + "/work_lock",
        ctx.locks().algorithm(guest, LockKind.SPINLOCK), LockKind.SPINLOCK, java.util.Map.of(), "work_queue",
        "worker_pop");
    Program queueOne = Program.named("work_queue")
        .op(listLock.lock(LockMode.IRQSAVE))
        .run(t -> queued++)
        .op(listLock.unlock(LockMode.IRQSAVE))
        .op(Ops.wakeOne(wq))
        .build();
    Program.Builder producerBurst = Program.named("producer_burst");
    for (int i = 0; i < burst; i++) {
      producerBurst.call(queueOne).work(gapNs, "producer_gap");
    }
    producerBurst.work(periodNs, "producer_idle_work");
    Program producer = Program.named("producer").loopWhile(t -> true, producerBurst.build()).build();

    Program pop = Program.named("worker_pop")
        .op(listLock.lock(LockMode.IRQ))
        .run(t -> done++)
        .op(listLock.unlock(LockMode.IRQ))
        .work(processNs, "worker_process")
        .op(Ops.condResched())
        .build();
    Program sleep = broken
        // BUG: the list was tested before the task joined the wait queue and set its state.
        ? Program.named("worker_sleep_broken")
            .work(windowNs, "worker_between_check_and_sleep")
            .op(prepareToWait())
            .op(Ops.schedule())
            .op(finishWait())
            .build()
        : Program.named("worker_sleep")
            .op(prepareToWait())
            .work(windowNs, "worker_between_check_and_sleep")
            .branch(t -> pending() == 0, Program.named("schedule").op(Ops.schedule()).build(), null)
            .op(finishWait())
            .build();
    Program worker = Program.named("worker_loop").branch(t -> pending() > 0, pop, sleep).build();
    guest.spawn(name + "/producer", producer);
    guest.spawn(name + "/worker", Program.named("worker").loopWhile(t -> true, worker).build());
  }

  /** prepare_to_wait(wq, TASK_INTERRUPTIBLE): join the queue, set the state, say what wakes us. */
  private Op prepareToWait() {
    return new Op() {
      @Override
      public int execute(Task t, int phase) {
        wq.add(t);
        t.setState(TaskState.INTERRUPTIBLE);
        t.setBlockedOn(wq, workPending);
        return NEXT;
      }
    };
  }

  /** finish_wait: running again, off the queue. */
  private Op finishWait() {
    return new Op() {
      @Override
      public int execute(Task t, int phase) {
        t.setState(TaskState.RUNNING);
        wq.remove(t);
        t.clearBlockedOn();
        return NEXT;
      }
    };
  }

  @Override
  public void resetStats() {
    producedSince = queued;
    doneSince = done;
  }

  @Override
  public ImmutableMap<String, Number> figures() {
    return ImmutableMap.of("items_queued", queued - producedSince, "items_done", done - doneSince, "backlog",
        pending());
  }
}

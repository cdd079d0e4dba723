package org.lockvisor.locking.builtin;

import java.util.ArrayDeque;
import java.util.EnumSet;
import org.lockvisor.locking.spi.LockContext;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.machine.Op;
import org.lockvisor.machine.Task;
import org.lockvisor.machine.TaskState;

/**
 * The OSQ on its own, as a lock: holding it means being the OSQ head (between {@code osq_lock}
 * returning true and {@code osq_unlock}). The kernel never uses it alone — mutexes and rwsems
 * fall back to their wait lists when {@code osq_lock} fails — so this harness does the
 * equivalent: a task whose {@code osq_lock} fails (need_resched, or a preempted predecessor)
 * sleeps until the next {@code osq_unlock} wakes the tasks that failed, then queues again.
 * Preemption is disabled while queued and while holding, as in the callers.
 */
final class OsqLock extends BaseLock {
  private static final int QUEUED = 2;
  private static final int SLEPT = 3;

  private final OptimisticSpinQueue osq;
  private final ArrayDeque<Task> failed = new ArrayDeque<>();
  private final NodeTable<Node> nodes = new NodeTable<>(t -> new Node());
  private final Op lockOp = new LockOp();
  private final Op unlockOp = new UnlockOp();

  private static final class Node {
    int step;
    final Inline inline = new Inline();
    final Inline unlockInline = new Inline();
    long waitStart;
    boolean contended;
  }

  OsqLock(LockContext context) {
    super(context, "osq", EnumSet.of(LockMode.PLAIN));
    this.osq = new OptimisticSpinQueue(kernel, costs, vcpuCheck, stats);
  }

  OptimisticSpinQueue osq() {
    return osq;
  }

  @Override
  public Op lock(LockMode mode) {
    checkMode(mode);
    return lockOp;
  }

  @Override
  public Op unlock(LockMode mode) {
    checkMode(mode);
    return unlockOp;
  }

  private final class LockOp extends Op {
    @Override
    public int execute(Task t, int phase) {
      Node n = nodes.get(t);
      if (phase == 0) {
        t.preemptDisable();
        n.waitStart = now();
        n.contended = osq.isLocked();
        waiterArrived();
        n.inline.reset();
        n.step = QUEUED;
      }
      for (;;) {
        switch (n.step) {
          case QUEUED -> {
            if (n.inline.run(osq.lockOp(), t) == AGAIN) {
              return AGAIN;
            }
            if (osq.acquired(t)) {
              waiterLeft();
              acquired(t, n.contended, n.waitStart);
              return NEXT;
            }
            n.contended = true;
            // failed: sleep until an osq_unlock, unless the OSQ emptied meanwhile
            if (!osq.isLocked()) {
              continue;
            }
            failed.addLast(t);
            t.setState(TaskState.UNINTERRUPTIBLE);
            stats.slept();
            n.step = SLEPT;
            t.scheduleNow();
            return AGAIN;
          }
          case SLEPT -> n.step = QUEUED;
          default -> throw new IllegalStateException("bad step " + n.step);
        }
      }
    }
  }

  private final class UnlockOp extends Op {
    @Override
    public int execute(Task t, int phase) {
      Node n = nodes.get(t);
      if (phase == 0) {
        released(t);
        n.unlockInline.reset();
      }
      if (n.unlockInline.run(osq.unlockOp(), t) == AGAIN) {
        return AGAIN;
      }
      Task w;
      while ((w = failed.pollFirst()) != null) {
        kernel.wakeUpNow(w, t.cpu());
      }
      t.preemptEnable();
      return NEXT;
    }
  }
}

package org.lockvisor.experiment.check;

import java.util.ArrayList;
import java.util.List;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.locking.spi.LockStats;
import org.lockvisor.machine.InvariantViolation;
import org.lockvisor.machine.Op;
import org.lockvisor.machine.Task;

/**
 * Invariant mode's view of a lock, independent of the algorithm: it wraps the lock's ops, counts
 * who is inside the critical section (a task is inside from the moment its acquire op finishes
 * until its release op starts) and fails the run the moment two tasks are inside an exclusive
 * section, or a reader and a writer share an rwsem, or a task releases a lock it does not hold.
 * While a task's acquire op is in progress the task is marked as blocked on this lock, which
 * gives the waits-for graph of deadlock detection.
 */
public final class CheckedLock implements KernelLock {
  private final KernelLock inner;
  private Task writer;
  private final List<Task> readers = new ArrayList<>();
  private final Op[] acquireOps = new Op[LockMode.values().length];
  private final Op[] releaseOps = new Op[LockMode.values().length];

  public CheckedLock(KernelLock inner) {
    this.inner = inner;
  }

  /** The lock being checked. */
  public KernelLock inner() {
    return inner;
  }

  /** The task inside the exclusive section, or null. */
  public Task writer() {
    return writer;
  }

  /** Tasks inside the shared section (rwsem readers). */
  public List<Task> readerList() {
    return readers;
  }

  @Override
  public String name() {
    return inner.name();
  }

  @Override
  public String lockClass() {
    return inner.lockClass();
  }

  @Override
  public String algorithm() {
    return inner.algorithm();
  }

  @Override
  public Op lock(LockMode mode) {
    Op op = acquireOps[mode.ordinal()];
    if (op == null) {
      op = new Acquire(inner.lock(mode), mode.isShared());
      acquireOps[mode.ordinal()] = op;
    }
    return op;
  }

  @Override
  public Op unlock(LockMode mode) {
    Op op = releaseOps[mode.ordinal()];
    if (op == null) {
      op = new Release(inner.unlock(mode), mode.isShared());
      releaseOps[mode.ordinal()] = op;
    }
    return op;
  }

  @Override
  public boolean supports(LockMode mode) {
    return inner.supports(mode);
  }

  @Override
  public Task owner() {
    return inner.owner();
  }

  @Override
  public int readers() {
    return inner.readers();
  }

  @Override
  public LockStats stats() {
    return inner.stats();
  }

  private void enter(Task t, boolean shared) {
    if (writer != null) {
      fail(t, describe(t) + " entered " + (shared ? "the read side of " : "") + this + " while " + describe(writer)
          + " holds it" + (shared ? " for write" : "") + "; the mutual exclusion of the lock is broken");
    }
    if (shared) {
      readers.add(t);
    } else {
      if (!readers.isEmpty()) {
        fail(t, describe(t) + " entered " + this + " for write while readers " + readers + " hold it");
      }
      writer = t;
    }
  }

  private void leave(Task t, boolean shared) {
    if (shared ? !readers.remove(t) : writer != t) {
      fail(t, describe(t) + " releases " + this + (shared ? " (read)" : "") + " which it does not hold; holder "
          + (writer != null ? describe(writer) : "none") + ", readers " + readers);
    }
    if (!shared) {
      writer = null;
    }
  }

  private static String describe(Task t) {
    return t + " (" + t.kernel() + (t.onCpu() ? ", on " + t.cpu() : ", off cpu") + ")";
  }

  private static void fail(Task t, String message) {
    throw new InvariantViolation(t.machine().sim().now(), "mutual exclusion: " + message);
  }

  @Override
  public String toString() {
    return "lock [" + inner.name() + "] (" + inner.algorithm() + ")";
  }

  private final class Acquire extends Op {
    private final Op op;
    private final boolean shared;

    Acquire(Op op, boolean shared) {
      this.op = op;
      this.shared = shared;
    }

    @Override
    public int execute(Task t, int phase) {
      if (phase == 0 || t.blockedOn() == null) {
        t.setBlockedOn(CheckedLock.this, null);
      }
      int r = op.execute(t, phase);
      if (r == NEXT) {
        t.clearBlockedOn();
        enter(t, shared);
      }
      return r;
    }

    @Override
    public String toString() {
      return op.toString();
    }
  }

  private final class Release extends Op {
    private final Op op;
    private final boolean shared;

    Release(Op op, boolean shared) {
      this.op = op;
      this.shared = shared;
    }

    @Override
    public int execute(Task t, int phase) {
      if (phase == 0) {
          leave(t, shared);
      }
      return op.execute(t, phase);
    }

    @Override
    public String toString() {
      return op.toString();
    }
  }
}

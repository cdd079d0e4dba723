package org.lockvisor.experiment.check;

import java.util.ArrayList;
import java.util.List;
import org.lockvisor.locking.spi.InstrumentedLock;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockBoundaries;
import org.lockvisor.machine.Task;
import org.lockvisor.machine.observe.InvariantViolation;

/**
 * Invariant mode's view of a lock, independent of the algorithm: added to the lock's one wrapper
 * ({@link InstrumentedLock#observe}) at its op boundaries, it counts who is inside the critical
 * section (a task is inside from the moment its acquire op finishes until its release op starts)
 * and fails the run the moment two tasks are inside an exclusive section, or a reader and a writer
 * share an rwsem, or a task releases a lock it does not hold. While a task's acquire op is in
 * progress the task is marked as blocked on this object, which gives the waits-for graph of
 * deadlock detection.
 */
public final class CheckedLock implements LockBoundaries {
  private final KernelLock inner;
  private Task writer;
  private final List<Task> readers = new ArrayList<>();

  private CheckedLock(KernelLock inner) {
    this.inner = inner;
  }

  /** The checks of {@code lock}, added to its one wrapper; use {@link #lock()} in its place. */
  public static CheckedLock of(KernelLock lock) {
    CheckedLock checks = new CheckedLock(lock);
    return checks.attach(lock);
  }

  private InstrumentedLock wrapped;

  private CheckedLock attach(KernelLock lock) {
    this.wrapped = InstrumentedLock.observe(lock, this);
    return this;
  }

  /** The lock with these checks at its op boundaries: what the run's tasks take. */
  public KernelLock lock() {
    return wrapped;
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
  public void acquiring(Task t, boolean shared, int phase) {
    if (phase == 0 || t.blockedOn() == null) {
      t.setBlockedOn(this, null);
    }
  }

  @Override
  public void acquired(Task t, boolean shared) {
    t.clearBlockedOn();
    enter(t, shared);
  }

  @Override
  public void releasing(Task t, boolean shared) {
    leave(t, shared);
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
}

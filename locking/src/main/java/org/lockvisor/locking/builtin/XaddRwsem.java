package org.lockvisor.locking.builtin;

import java.util.ArrayDeque;
import java.util.EnumSet;
import org.lockvisor.locking.spi.LockContext;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.machine.Op;
import org.lockvisor.machine.Ops;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Task;
import org.lockvisor.machine.TaskState;

/**
 * The xadd rwsem with writer optimistic spinning (kernel/locking/rwsem-xadd.c, v3.16–v5.2), in
 * its 4.7 or 4.8 form (option {@code kernel-version}): {@code rwsem_down_write_failed}, {@code
 * rwsem_optimistic_spin}, {@code rwsem_can_spin_on_owner}, {@code rwsem_spin_on_owner}, {@code
 * rwsem_down_read_failed}, {@code rwsem_wake}, {@code __rwsem_mark_wake}. This class holds the
 * fast paths, the reader slow path and the wakeup; the state both slow paths read is in {@link
 * XaddRwsemCore}, the writer slow path in {@link XaddRwsemWriteSlowPath}.
 *
 * <p>The count is kept as its meaning: active readers, the active writer (the owner) and whether
 * tasks wait. down_write succeeds at once only with no active holder and no waiter; otherwise a
 * writer spins optimistically ({@code rwsem_optimistic_spin}) if {@code rwsem_can_spin_on_owner}
 * allows — need_resched clear and either a running writer owner (with the vcpu_is_preempted check
 * of 4.9, its vCPU not preempted) or no writer owner (see below) — takes the OSQ, and its head
 * spins in {@code rwsem_spin_on_owner} while the owner stays the same, on CPU and not preempted,
 * and takes the lock with {@code rwsem_try_write_lock_unqueued} as soon as there is no active
 * holder (stealing from queued waiters). Failing that, the writer queues under {@code wait_lock}
 * and sleeps until it can take the lock itself. down_read succeeds with no writer and no waiter;
 * otherwise the reader queues and sleeps until a waker grants it the lock ({@code
 * __rwsem_mark_wake} grants the readers at the front of the queue, or wakes the front writer).
 *
 * <p>Where 4.7 and 4.8 differ (read from both versions' rwsem-xadd.c and rwsem.h):
 *
 * <ul>
 *   <li><b>4.7</b> ({@code rwsem_spin_on_owner(sem, owner)}, called only when {@code sem->owner}
 *       is set): with no owner, {@code rwsem_can_spin_on_owner} refuses if the count shows an
 *       active holder (readers); in the spin loop an owner-less lock is not spun on in {@code
 *       rwsem_spin_on_owner} but the loop itself goes round ({@code try_write_lock_unqueued},
 *       {@code cpu_relax}) until the readers leave, a writer owner appears, or need_resched — a
 *       spin on readers, charged to {@code rwsem_down_write_failed} (where {@code
 *       rwsem_optimistic_spin} is inlined). After an owner spin ends with the owner gone, the count
 *       decides: free ({@code count == 0 || count == RWSEM_WAITING_BIAS}) goes on, readers stop.
 *   <li><b>4.8</b> ({@code rwsem_spin_on_owner(sem)}, commit "locking/rwsem: Add reader-owned
 *       state to the owner field"): a reader that takes the lock sets {@code sem->owner =
 *       RWSEM_READER_OWNED} ({@code rwsem_set_reader_owned} in {@code down_read} and {@code
 *       __rwsem_mark_wake}); readers never clear it, only a writer's {@code rwsem_set_owner} /
 *       {@code rwsem_clear_owner} does. A reader-owned mark — even a stale one after the readers
 *       left — stops spinning in {@code rwsem_can_spin_on_owner} and at the end of {@code
 *       rwsem_spin_on_owner}; an owner-less unmarked lock is spinnable.
 * </ul>
 *
 * <p>up_read/up_write call {@code rwsem_wake} when waiters exist and no holder is left; with a
 * spinner queued on the OSQ ({@code rwsem_has_spinner}, since 4.2) the wakeup only tries {@code
 * raw_spin_trylock_irqsave(&sem->wait_lock)} and is skipped when wait_lock is busy (the spinner
 * will try the lock before it sleeps) — counted as {@link
 * org.lockvisor.locking.spi.LockStats#wakeupLeftToSpinner}.
 */
final class XaddRwsem extends XaddRwsemCore {
  private static final int QUEUED = 8;
  private static final int R_LOCK = 20;
  private static final int R_UNLOCK = 21;
  private static final int R_WAKE = 22;
  private static final int R_WAIT = 23;
  private static final int W_LOCK = 30;
  private static final int W_UNLOCK = 31;
  private static final int W_WAKE = 32;
  private static final int W_END = 33;
  private static final int W_START = 34;

  private final Op writeLock = new LockOp(true);
  private final Op readLock = new LockOp(false);
  private final Op writeUnlock = new UnlockOp(true);
  private final Op readUnlock = new UnlockOp(false);
  private final Program writeSlowPath;
  private final Program readSlowPath;
  private final Program wakePath;
  private final Program wakeQ;

  XaddRwsem(LockContext context, boolean optimisticSpin, String waitLockAlgorithm) {
    this(context, optimisticSpin, waitLockAlgorithm, KernelVersion.V4_8);
  }

  XaddRwsem(LockContext context, boolean optimisticSpin, String waitLockAlgorithm, KernelVersion version) {
    super(context, optimisticSpin, waitLockAlgorithm, version);
    this.writeSlowPath = Program.named("down_write")
        .call(Program.named("rwsem_down_write_failed").op(new XaddRwsemWriteSlowPath(this)).build())
        .build();
    this.readSlowPath = Program.named("down_read")
        .call(Program.named("rwsem_down_read_failed").op(new ReadSlowOp()).build())
        .build();
    this.wakeQ = Program.named("wake_up_q")
        .loopWhile(t -> nodes.get(t).hasWakes(),
            Program.named("wake_up_q").op(Ops.wake(t -> nodes.get(t).wakeQ().poll())).build())
        .build();
    this.wakePath = Program.named("rwsem_wake").op(new WakeOp()).build();
  }

  @Override
  public Op lock(LockMode mode) {
    checkMode(mode);
    return mode == LockMode.WRITE ? writeLock : readLock;
  }

  @Override
  public Op unlock(LockMode mode) {
    checkMode(mode);
    return mode == LockMode.WRITE ? writeUnlock : readUnlock;
  }

  /**
   * __rwsem_mark_wake(RWSEM_WAKE_ANY) under wait_lock: wake the front writer (it takes the lock
   * itself), or grant the lock to the readers at the front and wake them. Fills {@code q}.
   */
  private int markWake(ArrayDeque<Task> q) {
    Task front = waitList.peekFirst();
    if (front == null) {
      return 0;
    }
    if (nodes.get(front).writer) {
      q.add(front);
      return 1;
    }
    if (owner != null) {
      return 0; // a writer stole the lock: readers keep waiting
    }
    int granted = 0;
    while (!waitList.isEmpty() && !nodes.get(waitList.peekFirst()).writer) {
      Task r = waitList.pollFirst();
      Node rn = nodes.get(r);
      readers++;
      readerAcquired();
      rn.granted = true;
      rn.acquiredAt = now();
      waiterLeft();
      acquiredShared(r, true, rn.waitStart);
      stats.handedOff();
      q.add(r);
      granted++;
    }
    return granted;
  }

  private final class LockOp extends Op {
    private final boolean write;

    LockOp(boolean write) {
      this.write = write;
    }

    @Override
    public int execute(Task t, int phase) {
      Node n = nodes.get(t);
      switch (phase) {
        case 0 -> {
          n.writer = write;
          long cost = rmw(t);
          boolean fast = write ? noActiveHolder() && waitList.isEmpty() : owner == null && waitList.isEmpty();
          if (fast) {
            if (write) {
              takeWrite(t, n, false);
            } else {
              readers++;
              readerAcquired();
              n.acquiredAt = now();
              acquiredShared(t, false, 0);
            }
            n.step = DONE;
          } else {
            n.waitStart = now();
            waiterArrived();
            n.step = write ? SLOW : R_LOCK;
          }
          t.startWork(cost, write ? symDownWrite : symDownRead, false);
          return AGAIN;
        }
        case 1 -> {
          return callSlowPath(t, n, write ? writeSlowPath : readSlowPath);
        }
        default -> {
          return NEXT;
        }
      }
    }

    @Override
    public String toString() {
      return (write ? "down_write(" : "down_read(") + name + ")";
    }
  }

  private final class ReadSlowOp extends Op {
    @Override
    public int execute(Task t, int phase) {
      Node n = nodes.get(t);
      for (;;) {
        switch (n.step) {
          case R_LOCK -> {
            if (n.inline.run(waitLockIrq, t) == AGAIN) {
              return AGAIN;
            }
            boolean first = waitList.isEmpty();
            n.granted = false;
            waitList.addLast(t);
            // no active holder, or no active writer and we are the first waiter: wake the front
            if (noActiveHolder() || (owner == null && first)) {
              markWake(n.wakeQ());
            }
            n.step = R_UNLOCK;
          }
          case R_UNLOCK -> {
            if (n.inline.run(waitUnlockIrq, t) == AGAIN) {
              return AGAIN;
            }
            n.step = R_WAKE;
            if (n.hasWakes()) {
              t.call(wakeQ);
              return AGAIN;
            }
          }
          case R_WAKE -> {
            n.step = R_WAIT;
          }
          case R_WAIT -> {
            t.setState(TaskState.UNINTERRUPTIBLE);
            if (n.granted) {
              t.setState(TaskState.RUNNING);
              n.step = DONE;
              return NEXT;
            }
            stats.slept();
            t.scheduleNow();
            return AGAIN;
          }
          case DONE -> {
            return NEXT;
          }
          default -> throw new IllegalStateException("bad step " + n.step);
        }
      }
    }
  }

  private final class UnlockOp extends Op {
    private final boolean write;

    UnlockOp(boolean write) {
      this.write = write;
    }

    @Override
    public int execute(Task t, int phase) {
      Node n = nodes.get(t);
      switch (phase) {
        case 0 -> {
          if (write) {
            released(t);
          } else {
            if (readers <= 0) {
              throw new IllegalStateException(name + ": up_read by " + t + " with no active reader");
            }
            readers--;
            accounting.releasedShared(t, n.acquiredAt);
          }
          pokeSpinner();
          long cost = rmw(t);
          n.wakeStep = noActiveHolder() && !waitList.isEmpty() ? W_START : W_END;
          t.startWork(cost, write ? symUpWrite : symUpRead, false);
          return AGAIN;
        }
        case 1 -> {
          if (n.wakeStep == W_END) {
            return NEXT;
          }
          n.wakeInline.reset();
          t.call(wakePath);
          return AGAIN;
        }
        default -> {
          return NEXT;
        }
      }
    }

    @Override
    public String toString() {
      return (write ? "up_write(" : "up_read(") + name + ")";
    }
  }

  /**
   * rwsem_wake: with a spinner on the OSQ ({@code rwsem_has_spinner}) only a trylock of wait_lock,
   * and no wakeup if it fails; else under wait_lock, mark and wake.
   */
  private final class WakeOp extends Op {
    @Override
    public int execute(Task t, int phase) {
      Node n = nodes.get(t);
      for (;;) {
        switch (n.wakeStep) {
          case W_START -> {
            if (optimisticSpin && osq.isLocked() && waitLock.trylockFails()) {
              // raw_spin_trylock_irqsave failed: the spinner will try the lock before it sleeps
              stats.wakeupLeftToSpinner();
              n.wakeStep = W_END;
              t.startWork(waitLock.rmw(t), symRwsemWake, false);
              return AGAIN;
            }
            n.wakeStep = W_LOCK;
          }
          case W_LOCK -> {
            if (n.wakeInline.run(waitLockIrqsave, t) == AGAIN) {
              return AGAIN;
            }
            int woken = markWake(n.wakeQ());
            n.wakeStep = W_UNLOCK;
            if (woken > 0) {
              t.startWork(costs.atomicNs() * woken, symMarkWake, false);
              return AGAIN;
            }
          }
          case W_UNLOCK -> {
            if (n.wakeInline.run(waitUnlockIrqsave, t) == AGAIN) {
              return AGAIN;
            }
            n.wakeStep = W_END;
            if (n.hasWakes()) {
              t.call(wakeQ);
              return AGAIN;
            }
          }
          case W_END -> {
            return NEXT;
          }
          default -> throw new IllegalStateException("bad wake step " + n.wakeStep);
        }
      }
    }
  }
}

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
 * The xadd rwsem with writer optimistic spinning (kernel/locking/rwsem-xadd.c, v3.16–v5.2;
 * 4.9-era reader-owned marking): {@code rwsem_down_write_failed}, {@code
 * rwsem_optimistic_spin}, {@code rwsem_spin_on_owner}, {@code rwsem_down_read_failed},
 * {@code rwsem_wake}, {@code __rwsem_mark_wake}.
 *
 * <p>The count is kept as its meaning: active readers, the active writer (the owner) and whether
 * tasks wait. down_write succeeds at once only with no active holder and no waiter; otherwise a
 * writer spins optimistically — if the owner is a running writer (and with the vcpu_is_preempted
 * check its vCPU is not preempted) or there is no owner, it takes the OSQ and its head spins in
 * {@code rwsem_spin_on_owner} while the owner stays the same, on CPU and not preempted, and takes
 * the lock with {@code try_write_lock_unqueued} as soon as there is no active holder (stealing
 * from queued waiters). A reader-owned rwsem is not spun on. Failing that, the writer queues
 * under {@code wait_lock} and sleeps until it can take the lock itself. down_read succeeds with
 * no writer and no waiter; otherwise the reader queues and sleeps until a waker grants it the
 * lock ({@code __rwsem_mark_wake} grants the readers at the front of the queue, or wakes the
 * front writer). up_read/up_write call {@code rwsem_wake} when waiters exist and no holder is
 * left (the {@code rwsem_has_spinner} shortcut — skip the wakeup when a spinner exists and
 * wait_lock is busy — is not modelled: the wakeup always takes wait_lock).
 */
final class XaddRwsem extends OwnerSpinningLock<XaddRwsem.Node> {
  private static final int SLOW = 1;
  private static final int OSQ_LOCK = 2;
  private static final int SPIN_LOOP = 3;
  private static final int SPUN = 4;
  private static final int OSQ_UNLOCK_OK = 5;
  private static final int OSQ_UNLOCK_FAIL = 6;
  private static final int WAIT_LOCK = 7;
  private static final int QUEUED = 8;
  private static final int WAIT_LOOP = 9;
  private static final int UNLOCK_AND_SLEEP = 10;
  private static final int WOKEN = 11;
  private static final int RELOCK = 12;
  private static final int UNLOCK_GOT = 13;
  private static final int R_LOCK = 20;
  private static final int R_UNLOCK = 21;
  private static final int R_WAKE = 22;
  private static final int R_WAIT = 23;
  private static final int W_LOCK = 30;
  private static final int W_UNLOCK = 31;
  private static final int W_WAKE = 32;
  private static final int W_END = 33;

  private final Op waitLockIrq;
  private final Op waitUnlockIrq;
  private final Op waitLockIrqsave;
  private final Op waitUnlockIrqsave;
  private int readers;
  private final Op writeLock = new LockOp(true);
  private final Op readLock = new LockOp(false);
  private final Op writeUnlock = new UnlockOp(true);
  private final Op readUnlock = new UnlockOp(false);
  private final Program writeSlowPath;
  private final Program readSlowPath;
  private final Program wakePath;
  private final Program wakeQ;
  private final int symDownWrite;
  private final int symDownRead;
  private final int symUpWrite;
  private final int symUpRead;
  private final int symSpinOnOwner;
  private final int symMarkWake;
  /** rwsem_can_spin_on_owner, where an arch that inlines vcpu_is_preempted charges the read. */
  private final int symCanSpin = vcpuCheck ? sym("rwsem_can_spin_on_owner") : -1;

  static final class Node extends OwnerSpinningLock.Node {
    boolean writer;
    int wakeStep;
    boolean granted;
    final Inline wakeInline = new Inline();
    long acquiredAt;
    /** Tasks this task will wake after the unlock; created on first use (most nodes never wake). */
    private ArrayDeque<Task> wakeQ;

    ArrayDeque<Task> wakeQ() {
      if (wakeQ == null) {
        wakeQ = new ArrayDeque<>(4);
      }
      return wakeQ;
    }

    boolean hasWakes() {
      return wakeQ != null && !wakeQ.isEmpty();
    }
  }

  XaddRwsem(LockContext context, boolean optimisticSpin, String waitLockAlgorithm) {
    super(context, "rwsem-xadd", EnumSet.of(LockMode.READ, LockMode.WRITE),
        optimisticSpin, waitLockAlgorithm, t -> new Node());
    this.waitLockIrq = waitLock.lock(LockMode.IRQ);
    this.waitUnlockIrq = waitLock.unlock(LockMode.IRQ);
    this.waitLockIrqsave = waitLock.lock(LockMode.IRQSAVE);
    this.waitUnlockIrqsave = waitLock.unlock(LockMode.IRQSAVE);
    this.symDownWrite = sym("down_write");
    this.symDownRead = sym("down_read");
    this.symUpWrite = sym("up_write");
    this.symUpRead = sym("up_read");
    this.symSpinOnOwner = sym("rwsem_spin_on_owner");
    this.symMarkWake = sym("__rwsem_mark_wake");
    this.writeSlowPath = Program.named("down_write")
        .call(Program.named("rwsem_down_write_failed").op(new WriteSlowOp()).build())
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

  @Override
  public int readers() {
    return readers;
  }

  private boolean noActiveHolder() {
    return owner == null && readers == 0;
  }

  private void takeWrite(Task t, Node n, boolean contended) {
    touch(t);
    if (contended) {
      waiterLeft();
    }
    acquired(t, contended, n.waitStart);
    pokeSpinner();
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

  private final class WriteSlowOp extends Op {
    @Override
    public int execute(Task t, int phase) {
      Node n = nodes.get(t);
      for (;;) {
        switch (n.step) {
          case SLOW -> {
            // rwsem_optimistic_spin: rwsem_can_spin_on_owner
            Task o = owner;
            boolean canSpin = optimisticSpin && !needResched(t)
                && (o != null ? o.onCpu() && !vcpuIsPreempted(o) : readers == 0);
            if (!canSpin) {
              n.step = WAIT_LOCK;
              if (optimisticSpin && !needResched(t) && o != null && o.onCpu()
                  && context.startVcpuPreemptedCheck(t, symCanSpin)) {
                return AGAIN; // the read that refused the spin
              }
              continue;
            }
            t.preemptDisable();
            n.step = OSQ_LOCK;
            if (o != null && context.startVcpuPreemptedCheck(t, symCanSpin)) {
              return AGAIN; // rwsem_can_spin_on_owner read vcpu_is_preempted
            }
          }
          case OSQ_LOCK -> {
            if (n.inline.run(osq.lockOp(), t) == AGAIN) {
              return AGAIN;
            }
            if (!osq.acquired(t)) {
              t.preemptEnable();
              n.step = WAIT_LOCK;
              continue;
            }
            n.step = SPIN_LOOP;
          }
          case SPIN_LOOP -> {
            Task o = owner;
            if (o != null) {
              if (spinOnOwnerOrBail(t, n, o, SPUN, OSQ_UNLOCK_FAIL, symSpinOnOwner)) {
                return AGAIN;
              }
              continue;
            }
            if (readers > 0) { // reader-owned: not spinnable
              n.step = OSQ_UNLOCK_FAIL;
              continue;
            }
            // try_write_lock_unqueued
            ownerSpinner = null;
            takeWrite(t, n, true);
            stats.spinAcquired();
            n.step = OSQ_UNLOCK_OK;
            t.startWork(costs.atomicNs(), symDownWrite, false);
            return AGAIN;
          }
          case SPUN -> n.step = ownerSpinGaveUp(n) ? OSQ_UNLOCK_FAIL : SPIN_LOOP;
          case OSQ_UNLOCK_OK -> {
            return osqUnlockAcquired(t, n);
          }
          case OSQ_UNLOCK_FAIL -> {
            if (ownerSpinner == t) {
              ownerSpinner = null;
            }
            if (n.inline.run(osq.unlockOp(), t) == AGAIN) {
              return AGAIN;
            }
            n.step = WAIT_LOCK;
            if (t.preemptEnable()) {
              return AGAIN;
            }
          }
          case WAIT_LOCK -> {
            if (n.inline.run(waitLockIrq, t) == AGAIN) {
              return AGAIN;
            }
            waitList.addLast(t);
            n.step = WAIT_LOOP;
          }
          case WAIT_LOOP -> {
            if (noActiveHolder()) { // rwsem_try_write_lock
              waitList.remove(t);
              takeWrite(t, n, true);
              n.step = UNLOCK_GOT;
              continue;
            }
            t.setState(TaskState.UNINTERRUPTIBLE);
            n.step = UNLOCK_AND_SLEEP;
          }
          case UNLOCK_AND_SLEEP -> {
            return unlockAndSleep(t, n, waitUnlockIrq, WOKEN);
          }
          case WOKEN -> {
            // do { schedule(); set_current_state(); } while (count & RWSEM_ACTIVE_MASK)
            if (!noActiveHolder()) {
              t.setState(TaskState.UNINTERRUPTIBLE);
              stats.slept();
              t.scheduleNow();
              return AGAIN;
            }
            t.setState(TaskState.RUNNING);
            n.step = RELOCK;
          }
          case RELOCK -> {
            if (n.inline.run(waitLockIrq, t) == AGAIN) {
              return AGAIN;
            }
            n.step = WAIT_LOOP;
          }
          case UNLOCK_GOT -> {
            if (n.inline.run(waitUnlockIrq, t) == AGAIN) {
              return AGAIN;
            }
            n.step = DONE;
            return NEXT;
          }
          case DONE -> {
            return NEXT;
          }
          default -> throw new IllegalStateException("bad step " + n.step);
        }
      }
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
          n.wakeStep = noActiveHolder() && !waitList.isEmpty() ? W_LOCK : W_END;
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

  /** rwsem_wake: under wait_lock, mark and wake (no {@code rwsem_has_spinner} shortcut). */
  private final class WakeOp extends Op {
    @Override
    public int execute(Task t, int phase) {
      Node n = nodes.get(t);
      for (;;) {
        switch (n.wakeStep) {
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

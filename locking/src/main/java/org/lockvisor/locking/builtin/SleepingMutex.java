package org.lockvisor.locking.builtin;

import java.util.EnumSet;
import java.util.function.Function;
import org.lockvisor.locking.spi.LockContext;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.machine.Op;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Task;

/**
 * What the count-based mutex ({@link CountMutex}, v3.15–v4.9) and the owner-based mutex ({@link
 * OwnerMutex}, v4.10+) of kernel/locking/mutex.c share beyond {@link OwnerSpinningLock}: the
 * {@code mutex_lock}/{@code mutex_unlock} fast-path skeleton and the slow-path steps both
 * generations run alike (can-spin check, OSQ lock/unlock, sleeping under
 * wait_lock). Each subclass keeps the steps in which the two generations differ.
 *
 * <p>Slow-path steps: the shared ones below are numbered 0–15; a subclass numbers its own from
 * {@link #FIRST_OWN_STEP}. A subclass's step switch hands the shared steps to {@link
 * #commonStep}, which returns {@link Op#AGAIN}, {@link Op#NEXT} or {@link #CONTINUE}.
 */
abstract class SleepingMutex<N extends SleepingMutex.Node> extends OwnerSpinningLock<N> {
  static final int SLOW = 1;
  static final int CAN_SPIN = 2;
  static final int OSQ_LOCK = 3;
  static final int SPIN_LOOP = 4;
  static final int SPUN_ON_OWNER = 5;
  static final int OSQ_UNLOCK_OK = 6;
  static final int OSQ_UNLOCK_FAIL = 7;
  static final int SPIN_FAILED = 8;
  static final int WAIT_LOCK = 9;
  /** The step after wait_lock is taken the first time (first try, then queue). */
  static final int QUEUE = 10;
  static final int WAIT_LOOP = 11;
  static final int UNLOCK_AND_SLEEP = 12;
  static final int WOKEN = 13;
  static final int RELOCK = 14;
  static final int UNLOCK_GOT = 15;
  static final int FIRST_OWN_STEP = 16;
  /** The unlock step that ends {@code mutex_unlock} without the slow path. */
  static final int U_DONE = 0;
  /** {@link #commonStep}: go round the subclass's step loop again. */
  static final int CONTINUE = -1;

  final Op waitLockLock;
  final Op waitLockUnlock;
  private final Op lockOp = new LockOp();
  private final Op unlockOp = new UnlockOp();
  final int symLock;
  final int symUnlock;
  final int symSpinOnOwner;
  /** mutex_can_spin_on_owner, where an arch that inlines vcpu_is_preempted charges the read. */
  private final int symCanSpin;
  private Program slowPath;
  private Program unlockSlowPath;

  /** Per-task state of the slow paths. */
  static class Node extends OwnerSpinningLock.Node {
    int unlockStep;
    final Inline unlockInline = new Inline();
    Task wakeTarget;
  }

  SleepingMutex(LockContext context, String algorithm, boolean optimisticSpin, String waitLockAlgorithm,
      Function<Task, N> newNode) {
    super(context, algorithm, EnumSet.of(LockMode.SLEEPING), optimisticSpin,
        waitLockAlgorithm, newNode);
    this.waitLockLock = waitLock.lock(LockMode.PLAIN);
    this.waitLockUnlock = waitLock.unlock(LockMode.PLAIN);
    this.symLock = sym("mutex_lock");
    this.symUnlock = sym("mutex_unlock");
    this.symSpinOnOwner = sym("mutex_spin_on_owner");
    this.symCanSpin = vcpuCheck ? sym("mutex_can_spin_on_owner") : -1;
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

  /**
   * The {@code mutex_lock} fast path on the lock word, after its atomic: true if {@code t} took
   * the lock (the caller records the acquisition).
   */
  abstract boolean fastLock(Task t);

  /**
   * The {@code mutex_unlock} fast path on the lock word, after {@code released(t)} and its
   * atomic: returns {@link #U_DONE} or the first step of the unlock slow path.
   */
  abstract int fastUnlock(Task t, N n);

  /**
   * Builds the slow paths around the subclass's ops (mutex_lock → __mutex_lock_slowpath, and
   * __mutex_unlock_slowpath); each subclass constructor calls this once.
   */
  final void slowPaths(Op slowOp, Op unlockSlowOp) {
    this.slowPath = Program.named("mutex_lock")
        .call(Program.named("__mutex_lock_slowpath").op(slowOp).build())
        .build();
    this.unlockSlowPath = Program.named("__mutex_unlock_slowpath").op(unlockSlowOp).build();
  }

  /**
   * The slow-path steps both generations run alike; returns {@link Op#AGAIN}, {@link Op#NEXT},
   * or {@link #CONTINUE} when {@code n.step} moved on.
   */
  final int commonStep(Task t, N n) {
    switch (n.step) {
      case CAN_SPIN -> {
        // mutex_can_spin_on_owner
        Task o = owner;
        if (needResched(t) || (o != null && (!o.onCpu() || vcpuIsPreempted(o)))) {
          n.step = SPIN_FAILED;
        } else {
          n.step = OSQ_LOCK;
        }
        // the read of vcpu_is_preempted, when the expression reaches it
        if (!needResched(t) && o != null && o.onCpu() && context.startVcpuPreemptedCheck(t, symCanSpin)) {
          return Op.AGAIN;
        }
        return CONTINUE;
      }
      case OSQ_LOCK -> {
        if (n.inline.run(osq.lockOp(), t) == Op.AGAIN) {
          return Op.AGAIN;
        }
        n.step = osq.acquired(t) ? SPIN_LOOP : SPIN_FAILED;
      }
      case OSQ_UNLOCK_OK -> {
        return osqUnlockAcquired(t, n);
      }
      case OSQ_UNLOCK_FAIL -> {
        if (n.inline.run(osq.unlockOp(), t) == Op.AGAIN) {
          return Op.AGAIN;
        }
        n.step = SPIN_FAILED;
      }
      case SPIN_FAILED -> {
        n.step = WAIT_LOCK;
        if (needResched(t)) { // schedule_preempt_disabled() before sleeping
          t.scheduleNow();
          return Op.AGAIN;
        }
      }
      case WAIT_LOCK -> {
        if (n.inline.run(waitLockLock, t) == Op.AGAIN) {
          return Op.AGAIN;
        }
        n.step = QUEUE;
      }
      case UNLOCK_AND_SLEEP -> {
        return unlockAndSleep(t, n, waitLockUnlock, WOKEN);
      }
      case RELOCK -> {
        if (n.inline.run(waitLockLock, t) == Op.AGAIN) {
          return Op.AGAIN;
        }
        n.step = WAIT_LOOP;
      }
      case UNLOCK_GOT -> {
        if (n.inline.run(waitLockUnlock, t) == Op.AGAIN) {
          return Op.AGAIN;
        }
        n.step = DONE;
        t.preemptEnable();
        return Op.NEXT;
      }
      case DONE -> {
        return Op.NEXT;
      }
      default -> throw new IllegalStateException("bad step " + n.step);
    }
    return CONTINUE;
  }

  /** mutex_lock: the fast path, then the slow path if it failed. */
  private final class LockOp extends Op {
    @Override
    public int execute(Task t, int phase) {
      N n = nodes.get(t);
      switch (phase) {
        case 0 -> {
          long cost = rmw(t);
          if (fastLock(t)) {
            acquired(t, false, 0);
            pokeSpinner();
            n.step = DONE;
          } else {
            n.waitStart = now();
            waiterArrived();
            n.step = SLOW;
          }
          t.startWork(cost, symLock, false);
          return AGAIN;
        }
        case 1 -> {
          return callSlowPath(t, n, slowPath);
        }
        default -> {
          return NEXT;
        }
      }
    }

    @Override
    public String toString() {
      return "mutex_lock(" + name + ")";
    }
  }

  /** mutex_unlock: the fast path, then the unlock slow path if waiters need it. */
  private final class UnlockOp extends Op {
    @Override
    public int execute(Task t, int phase) {
      N n = nodes.get(t);
      switch (phase) {
        case 0 -> {
          released(t);
          long cost = rmw(t);
          n.unlockStep = fastUnlock(t, n);
          pokeSpinner();
          t.startWork(cost, symUnlock, false);
          return AGAIN;
        }
        case 1 -> {
          if (n.unlockStep == U_DONE) {
            return NEXT;
          }
          n.unlockInline.reset();
          t.call(unlockSlowPath);
          return AGAIN;
        }
        default -> {
          return NEXT;
        }
      }
    }

    @Override
    public String toString() {
      return "mutex_unlock(" + name + ")";
    }
  }
}

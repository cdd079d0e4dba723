package org.lockvisor.locking.builtin;

import org.lockvisor.locking.spi.LockContext;
import org.lockvisor.machine.Op;
import org.lockvisor.machine.Ops;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.SpinCondition;
import org.lockvisor.machine.Task;
import org.lockvisor.machine.TaskState;

/**
 * The count-based mutex of v3.15–v4.9 (kernel/locking/mutex.c {@code __mutex_lock_common},
 * {@code mutex_optimistic_spin}, {@code mutex_spin_on_owner}, {@code
 * __mutex_unlock_common_slowpath}); the R3 "before" kernel.
 *
 * <p>count: 1 unlocked, 0 locked, negative locked with possible waiters. {@code mutex_lock}: the
 * arch fast path decrements; a negative result enters the slow path, which first spins
 * optimistically — if the owner is running ({@code mutex_can_spin_on_owner}, and with the
 * vcpu_is_preempted check its vCPU is not preempted) it queues on the OSQ, and the OSQ head
 * spins in {@code mutex_spin_on_owner} while the owner stays the same, on CPU, not preempted and
 * need_resched is clear, then tries {@code cmpxchg(count, 1, 0)} — stealing the lock from any
 * woken waiter. Failing that, the task sleeps on the FIFO wait list under {@code wait_lock}
 * ({@code xchg(count, -1)} each time it wakes). {@code mutex_unlock}: clear the owner, increment;
 * a non-positive result enters {@code __mutex_unlock_slowpath}: count = 1, then wake the first
 * waiter — with {@code wake_up_process} inside wait_lock (3.x), or with a wake_q after dropping
 * it (4.6+).
 *
 * <p>Time: fast paths in {@code mutex_lock}/{@code mutex_unlock}; OSQ spinning in {@code
 * osq_lock}; owner spinning in {@code mutex_spin_on_owner}; the rest under {@code
 * __mutex_lock_slowpath}. The owner is set atomically with the count here (the kernel's short
 * window where count is 0 and owner not yet set is not modelled, except as a spin charged to
 * {@code mutex_optimistic_spin} should it arise).
 */
final class CountMutex extends SleepingMutex<SleepingMutex.Node> {
  // lock steps of this generation (the shared ones are in SleepingMutex)
  private static final int TRY_ONCE = QUEUE;
  private static final int GOT = FIRST_OWN_STEP;
  // unlock steps
  private static final int U_SLOW = 1;
  private static final int U_LOCK = 2;
  private static final int U_PICK = 3;
  private static final int U_END = 5;

  private final boolean wakeInsideWaitLock;
  private final SpinCondition settled = s -> owner != null || this.count == 1 || needResched(s);
  private final Program wake;
  private final int symOptimistic;
  private final int symSlow;
  private int count = 1;

  CountMutex(LockContext context, boolean optimisticSpin, boolean wakeInsideWaitLock, String waitLockAlgorithm) {
    super(context, "mutex-count", optimisticSpin, waitLockAlgorithm,
        t -> new Node());
    this.wakeInsideWaitLock = wakeInsideWaitLock;
    this.symOptimistic = sym("mutex_optimistic_spin");
    this.symSlow = sym("__mutex_lock_slowpath");
    slowPaths(new SlowOp(), new UnlockSlowOp());
    this.wake = Program.named(wakeInsideWaitLock ? "wake_up_process" : "wake_up_q")
        .op(Ops.wake(t -> nodes.get(t).wakeTarget))
        .build();
  }

  /** The arch fast path: decrement; 0 means we took it. */
  @Override
  boolean fastLock(Task t) {
    count--;
    return count == 0;
  }

  /** Increment; a non-positive result enters __mutex_unlock_slowpath. */
  @Override
  int fastUnlock(Task t, Node n) {
    count++;
    return count > 0 ? U_DONE : U_SLOW;
  }

  private void take(Task t, Node n) {
    touch(t);
    waiterLeft();
    acquired(t, true, n.waitStart);
    pokeSpinner();
  }

  private final class SlowOp extends Op {
    @Override
    public int execute(Task t, int phase) {
      Node n = nodes.get(t);
      for (;;) {
        switch (n.step) {
          case SLOW -> {
            t.preemptDisable();
            n.step = optimisticSpin ? CAN_SPIN : WAIT_LOCK;
          }
          case SPIN_LOOP -> {
            Task o = owner;
            if (o != null) {
              if (spinOnOwnerOrBail(t, n, o, SPUN_ON_OWNER, OSQ_UNLOCK_FAIL, symSpinOnOwner)) {
                return AGAIN;
              }
              continue;
            }
            if (count == 1) { // mutex_try_to_acquire: cmpxchg(count, 1, 0)
              count = 0;
              owner = t;
              take(t, n);
              stats.spinAcquired();
              ownerSpinner = null;
              n.step = OSQ_UNLOCK_OK;
              t.startWork(costs.atomicNs(), symSlow, false);
              return AGAIN;
            }
            if (needResched(t)) {
              n.step = OSQ_UNLOCK_FAIL;
              continue;
            }
            ownerSpinner = t;
            t.startSpin(symOptimistic, settled, 0, null);
            return AGAIN;
          }
          case SPUN_ON_OWNER -> {
            // spin_on_owner gave up: owner off CPU, preempted, or need_resched
            n.step = ownerSpinGaveUp(t, n) ? OSQ_UNLOCK_FAIL : SPIN_LOOP;
          }
          case OSQ_UNLOCK_FAIL -> {
            ownerSpinner = ownerSpinner == t ? null : ownerSpinner;
            int r = commonStep(t, n);
            if (r != CONTINUE) {
              return r;
            }
          }
          case TRY_ONCE -> {
            if (count == 1) { // !mutex_is_locked && xchg(count, 0) == 1
              count = 0;
              n.step = GOT;
              continue;
            }
            waitList.addLast(t);
            n.step = WAIT_LOOP;
          }
          case WAIT_LOOP -> {
            if (count >= 0) {
              int old = count;
              count = -1;
              if (old == 1) {
                waitList.remove(t);
                if (waitList.isEmpty()) {
                  count = 0;
                }
                n.step = GOT;
                continue;
              }
            }
            t.setState(TaskState.UNINTERRUPTIBLE);
            n.step = UNLOCK_AND_SLEEP;
          }
          case WOKEN -> n.step = RELOCK;
          case GOT -> {
            owner = t;
            take(t, n);
            n.step = UNLOCK_GOT;
          }
          default -> {
            int r = commonStep(t, n);
            if (r != CONTINUE) {
              return r;
            }
          }
        }
      }
    }

    @Override
    public String toString() {
      return "__mutex_lock_slowpath(" + name + ")";
    }
  }

  private final class UnlockSlowOp extends Op {
    @Override
    public int execute(Task t, int phase) {
      Node n = nodes.get(t);
      for (;;) {
        switch (n.unlockStep) {
          case U_SLOW -> {
            count = 1; // __mutex_slowpath_needs_to_unlock: release before waking
            pokeSpinner();
            n.unlockStep = U_LOCK;
          }
          case U_LOCK -> {
            if (n.unlockInline.run(waitLockLock, t) == AGAIN) {
              return AGAIN;
            }
            n.wakeTarget = waitList.peekFirst();
            n.unlockStep = U_PICK;
            if (wakeInsideWaitLock && n.wakeTarget != null) {
              t.call(wake);
              return AGAIN;
            }
          }
          case U_PICK -> {
            if (n.unlockInline.run(waitLockUnlock, t) == AGAIN) {
              return AGAIN;
            }
            n.unlockStep = U_END;
            if (!wakeInsideWaitLock && n.wakeTarget != null) {
              t.call(wake);
              return AGAIN;
            }
          }
          case U_END -> {
            n.wakeTarget = null;
            n.unlockStep = U_DONE;
            return NEXT;
          }
          default -> throw new IllegalStateException("bad unlock step " + n.unlockStep);
        }
      }
    }
  }
}

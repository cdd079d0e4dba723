package org.lockvisor.locking.builtin;

import org.lockvisor.locking.spi.LockContext;
import org.lockvisor.machine.Op;
import org.lockvisor.machine.Ops;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Task;
import org.lockvisor.machine.TaskState;

/**
 * The owner-based mutex of v4.10+ (kernel/locking/mutex.c, Peter Zijlstra's rewrite; 5.10
 * source): the owner word holds the owning task plus MUTEX_FLAG_WAITERS, _HANDOFF and _PICKUP.
 *
 * <p>Fast paths: {@code cmpxchg(owner, 0, current)} and back. Slow path ({@code
 * __mutex_lock_common}): trylock, then optimistic spinning as in the count-based mutex (OSQ,
 * {@code mutex_spin_on_owner} with the vcpu_is_preempted check); then queue on the wait list
 * under wait_lock (setting WAITERS) and sleep. A woken waiter retries; the first waiter sets
 * HANDOFF after a failed attempt and may spin on the owner itself (without the OSQ). Unlock:
 * without HANDOFF the owner word is released first (stealing stays possible); the first waiter
 * is put on a wake_q under wait_lock and woken after dropping it; with HANDOFF the unlocker
 * hands ownership directly to the first waiter ({@code owner = waiter | PICKUP}), bounding
 * starvation.
 */
final class OwnerMutex extends SleepingMutex<OwnerMutex.Node> {
  // lock steps of this generation (the shared ones are in SleepingMutex)
  private static final int SPUN = SPUN_ON_OWNER;
  private static final int LOOP = WAIT_LOOP;
  private static final int ACQ_RELOCK = FIRST_OWN_STEP;
  private static final int ACQ_LOCKED = FIRST_OWN_STEP + 1;
  // unlock steps
  private static final int U_LOCK = 1;
  private static final int U_UNLOCK = 2;
  private static final int U_END = 3;

  private final Program wake;
  private boolean flagWaiters;
  private boolean flagHandoff;
  private boolean flagPickup;

  static final class Node extends SleepingMutex.Node {
    boolean first;
    boolean waiterSpin;
    boolean handoff;
  }

  OwnerMutex(LockContext context, boolean optimisticSpin, String waitLockAlgorithm) {
    super(context, "mutex-owner", optimisticSpin, waitLockAlgorithm,
        t -> new Node());
    slowPaths(new SlowOp(), new UnlockSlowOp());
    this.wake = Program.named("wake_up_q").op(Ops.wake(t -> nodes.get(t).wakeTarget)).build();
  }

  /** cmpxchg(owner, 0, current): only a free word with no flags. */
  @Override
  boolean fastLock(Task t) {
    return owner == null && !flagWaiters && !flagHandoff;
  }

  /** cmpxchg(owner, current, 0) fails while WAITERS or HANDOFF is set. */
  @Override
  int fastUnlock(Task t, Node n) {
    if (!flagWaiters && !flagHandoff) {
      return U_DONE;
    }
    n.handoff = flagHandoff;
    if (n.handoff) {
      owner = t; // the word keeps us until __mutex_handoff under wait_lock
    }
    return U_LOCK;
  }

  /** __mutex_trylock: a free owner word, or a hand-off to us waiting to be picked up. */
  private boolean trylock(Task t, Node n) {
    if (owner == null) {
      owner = t;
    } else if (owner == t && flagPickup) {
      flagPickup = false;
    } else {
      return false;
    }
    flagHandoff = false;
    touch(t);
    waiterLeft();
    acquired(t, true, n.waitStart);
    pokeSpinner();
    return true;
  }

  private final class SlowOp extends Op {
    @Override
    public int execute(Task t, int phase) {
      Node n = nodes.get(t);
      for (;;) {
        switch (n.step) {
          case SLOW -> {
            t.preemptDisable();
            n.first = false;
            n.waiterSpin = false;
            if (trylock(t, n)) {
              n.step = DONE;
              t.preemptEnable();
              return NEXT;
            }
            n.step = optimisticSpin ? CAN_SPIN : WAIT_LOCK;
          }
          case SPIN_LOOP -> {
            if (trylock(t, n)) { // __mutex_trylock_or_owner
              stats.spinAcquired();
              if (ownerSpinner == t) {
                ownerSpinner = null;
              }
              n.step = n.waiterSpin ? ACQ_RELOCK : OSQ_UNLOCK_OK;
              continue;
            }
            Task o = owner;
            if (o == t || cannotSpinOn(t, o)) {
              stats.spinBailout();
              n.step = n.waiterSpin ? RELOCK : OSQ_UNLOCK_FAIL;
              continue;
            }
            return spinOnOwner(t, n, o, SPUN, symSpinOnOwner);
          }
          case SPUN -> {
            if (ownerSpinGaveUp(t, n)) {
              if (ownerSpinner == t) {
                ownerSpinner = null;
              }
              n.step = n.waiterSpin ? RELOCK : OSQ_UNLOCK_FAIL;
            } else {
              n.step = SPIN_LOOP;
            }
          }
          case QUEUE -> {
            if (trylock(t, n)) {
              n.step = UNLOCK_GOT;
              continue;
            }
            waitList.addLast(t);
            if (waitList.peekFirst() == t) {
              flagWaiters = true;
            }
            t.setState(TaskState.UNINTERRUPTIBLE);
            n.step = LOOP;
          }
          case LOOP -> {
            if (trylock(t, n)) {
              n.step = ACQ_LOCKED;
              continue;
            }
            n.step = UNLOCK_AND_SLEEP;
          }
          case WOKEN -> {
            if (!n.first) {
              n.first = waitList.peekFirst() == t;
              if (n.first) {
                flagHandoff = true;
              }
            }
            t.setState(TaskState.UNINTERRUPTIBLE);
            if (trylock(t, n)) {
              n.step = ACQ_RELOCK;
              continue;
            }
            if (n.first && optimisticSpin) {
              n.waiterSpin = true;
              n.step = SPIN_LOOP;
              continue;
            }
            n.step = RELOCK;
          }
          case RELOCK -> {
            n.waiterSpin = false;
            int r = commonStep(t, n);
            if (r != CONTINUE) {
              return r;
            }
          }
          case ACQ_RELOCK -> {
            n.waiterSpin = false;
            if (n.inline.run(waitLockLock, t) == AGAIN) {
              return AGAIN;
            }
            n.step = ACQ_LOCKED;
          }
          case ACQ_LOCKED -> {
            t.setState(TaskState.RUNNING);
            waitList.remove(t);
            if (waitList.isEmpty()) {
              flagWaiters = false;
              flagHandoff = false;
            }
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
  }

  private final class UnlockSlowOp extends Op {
    @Override
    public int execute(Task t, int phase) {
      Node n = nodes.get(t);
      for (;;) {
        switch (n.unlockStep) {
          case U_LOCK -> {
            if (n.unlockInline.run(waitLockLock, t) == AGAIN) {
              return AGAIN;
            }
            Task next = waitList.peekFirst();
            n.wakeTarget = next;
            if (n.handoff) { // __mutex_handoff
              owner = next;
              flagPickup = next != null;
              flagHandoff = false;
              if (next != null) {
                stats.handedOff();
              }
              pokeSpinner();
            }
            n.unlockStep = U_UNLOCK;
          }
          case U_UNLOCK -> {
            if (n.unlockInline.run(waitLockUnlock, t) == AGAIN) {
              return AGAIN;
            }
            n.unlockStep = U_END;
            if (n.wakeTarget != null) {
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

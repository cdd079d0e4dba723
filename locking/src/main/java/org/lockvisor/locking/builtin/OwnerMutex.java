package org.lockvisor.locking.builtin;

import java.util.ArrayDeque;
import java.util.EnumSet;
import org.lockvisor.locking.spi.LockCosts;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Op;
import org.lockvisor.machine.Ops;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.SpinCondition;
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
final class OwnerMutex extends BaseLock {
  private static final int DONE = 0;
  private static final int SLOW = 1;
  private static final int CAN_SPIN = 2;
  private static final int OSQ_LOCK = 3;
  private static final int SPIN_LOOP = 4;
  private static final int SPUN = 5;
  private static final int OSQ_UNLOCK_OK = 6;
  private static final int OSQ_UNLOCK_FAIL = 7;
  private static final int SPIN_FAILED = 8;
  private static final int WAIT_LOCK = 9;
  private static final int QUEUE = 10;
  private static final int LOOP = 11;
  private static final int UNLOCK_AND_SLEEP = 12;
  private static final int WOKEN = 13;
  private static final int RELOCK = 14;
  private static final int ACQ_RELOCK = 15;
  private static final int ACQ_LOCKED = 16;
  private static final int UNLOCK_GOT = 17;
  private static final int U_DONE = 0;
  private static final int U_LOCK = 1;
  private static final int U_UNLOCK = 2;
  private static final int U_END = 3;

  private final BaseLock waitLock;
  private final OptimisticSpinQueue osq;
  private final Op waitLockLock;
  private final Op waitLockUnlock;
  private final ArrayDeque<Task> waitList = new ArrayDeque<>();
  private final NodeTable<Node> nodes = new NodeTable<>(t -> new Node());
  private final SpinCondition ownerChanged = this::ownerCondition;
  private final Op lockOp = new LockOp();
  private final Op unlockOp = new UnlockOp();
  private final Program slowPath;
  private final Program unlockSlowPath;
  private final Program wake;
  private final int symLock;
  private final int symUnlock;
  private final int symSpinOnOwner;
  private final boolean optimisticSpin;
  private boolean flagWaiters;
  private boolean flagHandoff;
  private boolean flagPickup;
  private Task ownerSpinner;

  private static final class Node {
    int step;
    int unlockStep;
    boolean first;
    boolean waiterSpin;
    boolean handoff;
    final Inline inline = new Inline();
    final Inline unlockInline = new Inline();
    long waitStart;
    Task spinOwner;
    Task wakeTarget;
  }

  OwnerMutex(String name, Kernel kernel, LockCosts costs, boolean vcpuCheck, boolean optimisticSpin,
      String waitLockAlgorithm) {
    super(name, "mutex-owner", kernel, costs, vcpuCheck, EnumSet.of(LockMode.SLEEPING));
    this.optimisticSpin = optimisticSpin;
    this.waitLock = SpinLocks.create(waitLockAlgorithm, name + ".wait_lock", kernel, costs, vcpuCheck);
    this.waitLockLock = waitLock.lock(LockMode.PLAIN);
    this.waitLockUnlock = waitLock.unlock(LockMode.PLAIN);
    this.osq = new OptimisticSpinQueue(kernel, costs, vcpuCheck, stats);
    this.symLock = sym("mutex_lock");
    this.symUnlock = sym("mutex_unlock");
    this.symSpinOnOwner = sym("mutex_spin_on_owner");
    this.slowPath = Program.named("mutex_lock")
        .call(Program.named("__mutex_lock_slowpath").op(new SlowOp()).build())
        .build();
    this.unlockSlowPath = Program.named("__mutex_unlock_slowpath").op(new UnlockSlowOp()).build();
    this.wake = Program.named("wake_up_q").op(Ops.wake(t -> nodes.get(t).wakeTarget)).build();
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

  private boolean ownerCondition(Task s) {
    accountHolder();
    Task o = nodes.get(s).spinOwner;
    return owner != o || !o.onCpu() || needResched(s) || vcpuIsPreempted(o);
  }

  private void pokeSpinner() {
    if (ownerSpinner != null) {
      ownerSpinner.poke(costs.lineTransferNs());
    }
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

  private final class LockOp extends Op {
    @Override
    public int execute(Task t, int phase) {
      Node n = nodes.get(t);
      switch (phase) {
        case 0 -> {
          long cost = rmw(t);
          if (owner == null && !flagWaiters && !flagHandoff) {
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
          if (n.step == DONE) {
            return NEXT;
          }
          n.inline.reset();
          t.call(slowPath);
          return AGAIN;
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
          case CAN_SPIN -> {
            Task o = owner;
            if (needResched(t) || (o != null && (!o.onCpu() || vcpuIsPreempted(o)))) {
              n.step = SPIN_FAILED;
              continue;
            }
            n.step = OSQ_LOCK;
          }
          case OSQ_LOCK -> {
            if (n.inline.run(osq.lockOp(), t) == AGAIN) {
              return AGAIN;
            }
            n.step = osq.acquired(t) ? SPIN_LOOP : SPIN_FAILED;
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
            if (o == t || !o.onCpu() || needResched(t) || vcpuIsPreempted(o)) {
              stats.spinBailout();
              n.step = n.waiterSpin ? RELOCK : OSQ_UNLOCK_FAIL;
              continue;
            }
            n.spinOwner = o;
            ownerSpinner = t;
            n.step = SPUN;
            t.startSpin(symSpinOnOwner, ownerChanged, 0, o.cpu());
            return AGAIN;
          }
          case SPUN -> {
            if (owner == n.spinOwner) {
              stats.spinBailout();
              if (ownerSpinner == t) {
                ownerSpinner = null;
              }
              n.step = n.waiterSpin ? RELOCK : OSQ_UNLOCK_FAIL;
            } else {
              n.step = SPIN_LOOP;
            }
          }
          case OSQ_UNLOCK_OK -> {
            if (n.inline.run(osq.unlockOp(), t) == AGAIN) {
              return AGAIN;
            }
            n.step = DONE;
            t.preemptEnable();
            return NEXT;
          }
          case OSQ_UNLOCK_FAIL -> {
            if (n.inline.run(osq.unlockOp(), t) == AGAIN) {
              return AGAIN;
            }
            n.step = SPIN_FAILED;
          }
          case SPIN_FAILED -> {
            n.step = WAIT_LOCK;
            if (needResched(t)) {
              t.scheduleNow();
              return AGAIN;
            }
          }
          case WAIT_LOCK -> {
            if (n.inline.run(waitLockLock, t) == AGAIN) {
              return AGAIN;
            }
            n.step = QUEUE;
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
          case UNLOCK_AND_SLEEP -> {
            if (n.inline.run(waitLockUnlock, t) == AGAIN) {
              return AGAIN;
            }
            n.step = WOKEN;
            if (t.state() != TaskState.RUNNING) {
              stats.slept();
            }
            t.scheduleNow();
            return AGAIN;
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
            if (n.inline.run(waitLockLock, t) == AGAIN) {
              return AGAIN;
            }
            n.step = LOOP;
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
          case UNLOCK_GOT -> {
            if (n.inline.run(waitLockUnlock, t) == AGAIN) {
              return AGAIN;
            }
            n.step = DONE;
            t.preemptEnable();
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

  private final class UnlockOp extends Op {
    @Override
    public int execute(Task t, int phase) {
      Node n = nodes.get(t);
      switch (phase) {
        case 0 -> {
          released(t);
          long cost = rmw(t);
          if (!flagWaiters && !flagHandoff) {
            n.unlockStep = U_DONE;
          } else {
            n.handoff = flagHandoff;
            if (n.handoff) {
              owner = t; // the word keeps us until __mutex_handoff under wait_lock
            }
            n.unlockStep = U_LOCK;
          }
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

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
final class CountMutex extends BaseLock {
  // lock steps
  private static final int DONE = 0;
  private static final int SLOW = 1;
  private static final int CAN_SPIN = 2;
  private static final int OSQ_LOCK = 3;
  private static final int SPIN_LOOP = 4;
  private static final int SPUN_ON_OWNER = 5;
  private static final int OSQ_UNLOCK_OK = 6;
  private static final int OSQ_UNLOCK_FAIL = 7;
  private static final int SPIN_FAILED = 8;
  private static final int WAIT_LOCK = 9;
  private static final int TRY_ONCE = 10;
  private static final int WAIT_LOOP = 11;
  private static final int UNLOCK_AND_SLEEP = 12;
  private static final int WOKEN = 13;
  private static final int RELOCK = 14;
  private static final int GOT = 15;
  private static final int UNLOCK_GOT = 16;
  // unlock steps
  private static final int U_DONE = 0;
  private static final int U_SLOW = 1;
  private static final int U_LOCK = 2;
  private static final int U_PICK = 3;
  private static final int U_END = 5;

  private final boolean optimisticSpin;
  private final boolean wakeInsideWaitLock;
  private final BaseLock waitLock;
  private final OptimisticSpinQueue osq;
  private final Op waitLockLock;
  private final Op waitLockUnlock;
  private final ArrayDeque<Task> waitList = new ArrayDeque<>();
  private final NodeTable<Node> nodes = new NodeTable<>(t -> new Node());
  private final SpinCondition ownerChanged = this::ownerCondition;
  private final SpinCondition settled = s -> owner != null || this.count == 1 || needResched(s);
  private final Op lockOp = new LockOp();
  private final Op unlockOp = new UnlockOp();
  private final Program slowPath;
  private final Program unlockSlowPath;
  private final Program wake;
  private final int symLock;
  private final int symUnlock;
  private final int symSpinOnOwner;
  private final int symOptimistic;
  private final int symSlow;
  private int count = 1;
  /** The OSQ head spinning on the owner, poked when owner or count change. */
  private Task ownerSpinner;

  private static final class Node {
    int step;
    int unlockStep;
    final Inline inline = new Inline();
    final Inline unlockInline = new Inline();
    long waitStart;
    Task spinOwner;
    Task wakeTarget;
  }

  CountMutex(String name, Kernel kernel, LockCosts costs, boolean vcpuCheck, boolean optimisticSpin,
      boolean wakeInsideWaitLock, String waitLockAlgorithm) {
    super(name, "mutex-count", kernel, costs, vcpuCheck, EnumSet.of(LockMode.SLEEPING));
    this.optimisticSpin = optimisticSpin;
    this.wakeInsideWaitLock = wakeInsideWaitLock;
    this.waitLock = SpinLocks.create(waitLockAlgorithm, name + ".wait_lock", kernel, costs, vcpuCheck);
    this.waitLockLock = waitLock.lock(LockMode.PLAIN);
    this.waitLockUnlock = waitLock.unlock(LockMode.PLAIN);
    this.osq = new OptimisticSpinQueue(kernel, costs, vcpuCheck, stats);
    this.symLock = sym("mutex_lock");
    this.symUnlock = sym("mutex_unlock");
    this.symSpinOnOwner = sym("mutex_spin_on_owner");
    this.symOptimistic = sym("mutex_optimistic_spin");
    this.symSlow = sym("__mutex_lock_slowpath");
    this.slowPath = Program.named("mutex_lock")
        .call(Program.named("__mutex_lock_slowpath").op(new SlowOp()).build())
        .build();
    this.unlockSlowPath = Program.named("__mutex_unlock_slowpath").op(new UnlockSlowOp()).build();
    this.wake = Program.named(wakeInsideWaitLock ? "wake_up_process" : "wake_up_q")
        .op(Ops.wake(t -> nodes.get(t).wakeTarget))
        .build();
  }

  /** The mutex's OSQ (for statistics). */
  OptimisticSpinQueue osq() {
    return osq;
  }

  /** The mutex's wait_lock (for statistics). */
  BaseLock waitLock() {
    return waitLock;
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

  private void take(Task t, Node n) {
    touch(t);
    waiterLeft();
    acquired(t, true, n.waitStart);
    pokeSpinner();
  }

  private final class LockOp extends Op {
    @Override
    public int execute(Task t, int phase) {
      Node n = nodes.get(t);
      switch (phase) {
        case 0 -> {
          long cost = rmw(t);
          count--;
          if (count == 0) {
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
            n.step = optimisticSpin ? CAN_SPIN : WAIT_LOCK;
          }
          case CAN_SPIN -> {
            // mutex_can_spin_on_owner
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
            Task o = owner;
            if (o != null) {
              if (!o.onCpu() || needResched(t) || vcpuIsPreempted(o)) {
                stats.spinBailout();
                n.step = OSQ_UNLOCK_FAIL;
                continue;
              }
              n.spinOwner = o;
              ownerSpinner = t;
              n.step = SPUN_ON_OWNER;
              t.startSpin(symSpinOnOwner, ownerChanged, 0, o.cpu());
              return AGAIN;
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
            if (owner == n.spinOwner) { // spin_on_owner gave up: owner off CPU, preempted, or need_resched
              stats.spinBailout();
              n.step = OSQ_UNLOCK_FAIL;
            } else {
              n.step = SPIN_LOOP;
            }
          }
          case OSQ_UNLOCK_OK -> {
            if (n.inline.run(osq.unlockOp(), t) == AGAIN) {
              return AGAIN;
            }
            t.preemptEnable();
            n.step = DONE;
            return NEXT;
          }
          case OSQ_UNLOCK_FAIL -> {
            ownerSpinner = ownerSpinner == t ? null : ownerSpinner;
            if (n.inline.run(osq.unlockOp(), t) == AGAIN) {
              return AGAIN;
            }
            n.step = SPIN_FAILED;
          }
          case SPIN_FAILED -> {
            n.step = WAIT_LOCK;
            if (needResched(t)) { // schedule_preempt_disabled() before sleeping
              t.scheduleNow();
              return AGAIN;
            }
          }
          case WAIT_LOCK -> {
            if (n.inline.run(waitLockLock, t) == AGAIN) {
              return AGAIN;
            }
            n.step = TRY_ONCE;
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
          case UNLOCK_AND_SLEEP -> {
            if (n.inline.run(waitLockUnlock, t) == AGAIN) {
              return AGAIN;
            }
            n.step = WOKEN;
            if (t.state() != TaskState.RUNNING) {
              stats.slept();
            }
            t.scheduleNow(); // schedule_preempt_disabled()
            return AGAIN;
          }
          case WOKEN -> n.step = RELOCK;
          case RELOCK -> {
            if (n.inline.run(waitLockLock, t) == AGAIN) {
              return AGAIN;
            }
            n.step = WAIT_LOOP;
          }
          case GOT -> {
            owner = t;
            take(t, n);
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

    @Override
    public String toString() {
      return "__mutex_lock_slowpath(" + name + ")";
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
          count++;
          n.unlockStep = count > 0 ? U_DONE : U_SLOW;
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

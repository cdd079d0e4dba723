package org.lockvisor.locking.builtin;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.lockvisor.locking.spi.LockContext;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.machine.Op;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.SpinCondition;
import org.lockvisor.machine.Task;

/**
 * The x86 {@code virt_spin_lock} test-and-set fallback (arch/x86/include/asm/qspinlock.h),
 * used under a hypervisor without PV spinlocks: {@code do { while (atomic_read(&lock->val))
 * cpu_relax(); } while (atomic_cmpxchg(&lock->val, 0, _Q_LOCKED_VAL) != 0)}. Unfair on purpose
 * ("fair locks have horrible lock 'holder' preemption issues"): at release every spinner re-reads
 * the line and whichever gets it first wins, so a preempted waiter never blocks the others.
 *
 * <p>Each spinner sees the release after a line transfer plus a random part of another (the order
 * in which the spinners' cache misses are served), drawn from a named stream of the run. The
 * releasing CPU still owns the line and may re-take the lock first. Time is charged to
 * {@code native_queued_spin_lock_slowpath}, under the lock API function.
 */
final class TasSpinLock extends SpinLockBase {
  private static final int DONE = 0;
  private static final int TRY = 1;
  private static final int SPUN = 2;

  private final List<Task> spinners = new ArrayList<>();
  private final NodeTable<Node> nodes = new NodeTable<>(t -> new Node());
  private final Program[] slowPaths = new Program[LockMode.values().length];
  private final SpinCondition free = this::freeCondition;
  private final SplittableRandom random;
  private final int symSlow;

  private static final class Node {
    long waitStart;
    Task watched;
    int step;
  }

  TasSpinLock(LockContext context) {
    super(context, "tas");
    this.random = sim.streams().get("lock/" + name + "/tas");
    this.symSlow = sym("native_queued_spin_lock_slowpath");
    for (LockMode m : SPIN_MODES) {
      lockOps[m.ordinal()] = new LockOp(m);
      unlockOps[m.ordinal()] = new UnlockOp(m);
      slowPaths[m.ordinal()] = Program.named(m.lockSymbol()).op(new SlowOp()).build();
    }
  }

  private boolean freeCondition(Task s) {
    accountHolder();
    return owner == null || owner != nodes.get(s).watched;
  }

  private final class LockOp extends ModeLockOp {
    LockOp(LockMode mode) {
      super(mode);
    }

    @Override
    public int execute(Task t, int phase) {
      Node n = nodes.get(t);
      switch (phase) {
        case 0 -> {
          enterMode(t, mode);
          long cost = rmw(t);
          if (owner == null) {
            acquired(t, false, 0);
            n.step = DONE;
          } else {
            n.waitStart = now();
            waiterArrived();
            n.step = TRY;
          }
          t.startWork(cost, symLock, false);
          return AGAIN;
        }
        case 1 -> {
          if (n.step == DONE) {
            return NEXT;
          }
          t.call(slowPaths[mode.ordinal()]);
          return AGAIN;
        }
        default -> {
          return NEXT;
        }
      }
    }
  }

  /** virt_spin_lock's loop: read until free, then cmpxchg; a lost race spins again. */
  private final class SlowOp extends Op {
    @Override
    public int execute(Task t, int phase) {
      Node n = nodes.get(t);
      for (;;) {
        switch (n.step) {
          case TRY -> {
            if (owner == null) {
              touch(t);
              spinners.remove(t);
              waiterLeft();
              acquired(t, true, n.waitStart);
              n.step = DONE;
              t.startWork(costs.atomicNs(), symSlow, false);
              return AGAIN;
            }
            n.watched = owner;
            n.step = SPUN;
            if (!spinners.contains(t)) {
              spinners.add(t);
            }
            t.startSpin(symSlow, free, 0, watchCpu(owner));
            return AGAIN;
          }
          case SPUN -> n.step = TRY;
          case DONE -> {
            return NEXT;
          }
          default -> throw new IllegalStateException("bad step " + n.step);
        }
      }
    }
  }

  private final class UnlockOp extends ModeUnlockOp {
    UnlockOp(LockMode mode) {
      super(mode);
    }

    @Override
    public int execute(Task t, int phase) {
      released(t);
      touch(t);
      long transfer = costs.lineTransferNs();
      for (int i = 0; i < spinners.size(); i++) {
        Task s = spinners.get(i);
        s.poke(transfer + (transfer > 0 ? random.nextLong(transfer) : 0));
      }
      exitMode(t, mode);
      return NEXT;
    }
  }
}

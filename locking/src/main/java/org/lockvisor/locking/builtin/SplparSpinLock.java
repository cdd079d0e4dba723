package org.lockvisor.locking.builtin;

import java.util.ArrayList;
import java.util.List;
import org.lockvisor.locking.spi.LockContext;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.SpinCondition;
import org.lockvisor.machine.Task;

/**
 * The powerpc spinlock of shared-processor LPARs before queued spinlocks
 * (arch/powerpc/include/asm/spinlock.h {@code arch_spin_lock}, arch/powerpc/lib/locks.c
 * {@code __spin_yield}). The lock word holds the holder's token; a waiter retries the
 * lwarx/stwcx. trylock, and while the word is held it lowers its SMT priority and, on a shared
 * processor, reads the holder's lppaca {@code yield_count}: odd means the holder's virtual
 * processor is not dispatched, and the waiter confers its cycles to it with H_CONFER. The
 * spin is inlined into {@code _raw_spin_lock*}; the hypervisor's time in H_CONFER is charged to
 * the {@code [H]}-domain symbol {@code H_CONFER}. Unfair: any spinner may win the trylock.
 *
 * <p>The yield count and H_CONFER are {@link SplparConfer}'s (shared with the rwlock's {@code
 * __rw_yield}); one confer is made per holder preemption, as with the kernel's re-read of
 * yield_count (4.8 {@code __spin_yield} passes {@code holder_cpu}). Interrupts are not
 * re-enabled while spinning ({@code arch_spin_lock_flags}), a simplification.
 */
final class SplparSpinLock extends SpinLockBase {
  private static final int DONE = 0;
  private static final int TRY = 1;
  private static final int SPUN = 2;
  private static final int CONFER = 3;

  private final boolean sharedProcessor;
  private final List<Task> spinners = new ArrayList<>();
  private final NodeTable<Node> nodes = new NodeTable<>(t -> new Node());
  private final SpinCondition changed = this::changedCondition;
  private final Program confer;
  private long confers;

  private static final class Node {
    long waitStart;
    Task watched;
    int step;
    long conferredYieldCount = -1;
    /** The holder's guest CPU passed to H_CONFER (__spin_yield: holder_cpu from the lock word). */
    int conferTarget = -1;
  }

  SplparSpinLock(LockContext context, boolean sharedProcessor) {
    super(context, "ppc-splpar");
    this.sharedProcessor = sharedProcessor && kernel.isGuest();
    for (LockMode m : SPIN_MODES) {
      lockOps[m.ordinal()] = new LockOp(m);
      unlockOps[m.ordinal()] = new UnlockOp(m);
    }
    this.confer = SplparConfer.conferProgram(context, "__spin_yield", t -> nodes.get(t).conferTarget);
  }

  /** Number of H_CONFER calls made by waiters of this lock. */
  long confers() {
    return confers;
  }

  private static long yieldCount(Task t) {
    return SplparConfer.yieldCount(t);
  }

  private boolean shouldConfer(Task holder, Node n) {
    if (!sharedProcessor || holder == null) {
      return false;
    }
    long yc = yieldCount(holder);
    return (yc & 1) == 1 && yc != n.conferredYieldCount;
  }

  private boolean changedCondition(Task s) {
    accountHolder();
    Node n = nodes.get(s);
    return owner == null || owner != n.watched || shouldConfer(owner, n);
  }

  private final class LockOp extends ModeLockOp {
    LockOp(LockMode mode) {
      super(mode);
    }

    @Override
    public int execute(Task t, int phase) {
      Node n = nodes.get(t);
      if (phase == 0) {
        enterMode(t, mode);
        long cost = rmw(t);
        if (owner == null) {
          acquired(t, false, 0);
          n.step = DONE;
        } else {
          n.waitStart = now();
          n.conferredYieldCount = -1;
          waiterArrived();
          spinners.add(t);
          n.step = TRY;
        }
        t.startWork(cost, symLock, false);
        return AGAIN;
      }
      for (;;) {
        switch (n.step) {
          case DONE -> {
            return NEXT;
          }
          case TRY -> {
            if (owner == null) {
              touch(t);
              spinners.remove(t);
              waiterLeft();
              acquired(t, true, n.waitStart);
              n.step = DONE;
              t.startWork(costs.atomicNs(), symLock, false);
              return AGAIN;
            }
            if (shouldConfer(owner, n)) {
              n.step = CONFER;
              continue;
            }
            n.watched = owner;
            n.step = SPUN;
            t.startSpin(symLock, changed, 0, watchCpu(owner));
            return AGAIN;
          }
          case SPUN -> n.step = TRY;
          case CONFER -> {
            n.conferredYieldCount = yieldCount(owner);
            n.conferTarget = owner.cpu().index();
            confers++;
            stats.conferred();
            n.step = TRY;
            t.call(confer);
            return AGAIN;
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
      for (int i = 0; i < spinners.size(); i++) {
        spinners.get(i).poke(costs.lineTransferNs());
      }
      exitMode(t, mode);
      return NEXT;
    }
  }
}

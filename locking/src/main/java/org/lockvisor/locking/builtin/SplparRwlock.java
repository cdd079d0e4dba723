package org.lockvisor.locking.builtin;

import java.util.ArrayList;
import java.util.List;
import org.lockvisor.locking.spi.LockContext;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.machine.Op;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.SpinCondition;
import org.lockvisor.machine.Task;

/**
 * The powerpc rwlock of 4.x kernels (arch/powerpc/include/asm/spinlock.h, 4.8: {@code
 * arch_read_lock}, {@code arch_write_lock}, {@code __arch_read_trylock}, {@code
 * __arch_write_trylock}, {@code arch_read_unlock}, {@code arch_write_unlock}; arch/powerpc/lib/
 * locks.c {@code __rw_yield}). The lock word counts readers (positive) or holds the writer's
 * negative token (its paca index in the low 16 bits). A reader's trylock ({@code lwarx},
 * increment, {@code stwcx.}) fails only while the word is negative; a writer's only while it is
 * non-zero. A waiter lowers its SMT priority and spins on the word — a reader while it is
 * negative, a writer while it is non-zero — and on a shared processor calls {@code __rw_yield}:
 * when the word holds a writer's token and that holder's {@code yield_count} is odd (its virtual
 * processor is not dispatched), it confers its cycles to the holder with H_CONFER ({@link
 * SplparConfer}, the same hypercall as {@code __spin_yield}). A writer waiting for readers never
 * confers: the kernel does not know which CPUs hold a read lock.
 *
 * <p>No fairness: every waiter retries the trylock when the word changes, readers can starve a
 * writer. The spin is inlined into the out-of-line {@code _raw_read_lock*}/{@code
 * _raw_write_lock*} of kernel/locking/spinlock.c, so its time is charged there; {@code __rw_yield}
 * is a function of its own (a frame above the hypercall). As with {@code ppc-splpar}, interrupts
 * are not re-enabled while spinning.
 */
final class SplparRwlock extends RwlockBase {
  private static final int DONE = 0;
  private static final int TRY = 1;
  private static final int SPUN = 2;
  private static final int CONFER = 3;

  private final boolean sharedProcessor;
  private final List<Task> spinners = new ArrayList<>();
  private final NodeTable<Node> nodes = new NodeTable<>(t -> new Node());
  private final SpinCondition changed = this::changedCondition;
  private final Program confer;

  private static final class Node {
    boolean reader;
    long waitStart;
    long acquiredAt;
    Task watched;
    int step;
    long conferredYieldCount = -1;
    int conferTarget = -1;
  }

  SplparRwlock(LockContext context, boolean sharedProcessor) {
    super(context, "ppc-splpar-rwlock");
    this.sharedProcessor = sharedProcessor && kernel.isGuest();
    for (LockMode m : LockMode.RWLOCK) {
      lockOps[m.ordinal()] = new LockOp(m);
      unlockOps[m.ordinal()] = new UnlockOp(m);
    }
    this.confer = SplparConfer.conferProgram(context, "__rw_yield", t -> nodes.get(t).conferTarget);
  }

  /** The trylock of {@code reader} side would succeed: no writer (reader), nothing at all (writer). */
  private boolean free(boolean reader) {
    return owner == null && (reader || readers == 0);
  }

  /** __rw_yield would confer: a writer holds the word and its VP is not dispatched (once per preemption). */
  private boolean shouldConfer(Node n) {
    if (!sharedProcessor || owner == null) {
      return false;
    }
    long yc = SplparConfer.yieldCount(owner);
    return (yc & 1) == 1 && yc != n.conferredYieldCount;
  }

  private boolean changedCondition(Task s) {
    accountHolder();
    Node n = nodes.get(s);
    return free(n.reader) || owner != n.watched || shouldConfer(n);
  }

  private void take(Task t, Node n, boolean contended) {
    if (n.reader) {
      readers++;
      acquiredShared(t, contended, n.waitStart);
      n.acquiredAt = now();
    } else {
      acquired(t, contended, n.waitStart);
    }
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
        n.reader = mode.isShared();
        long cost = rmw(t); // __arch_read_trylock / __arch_write_trylock: lwarx/stwcx.
        if (free(n.reader)) {
          take(t, n, false);
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
            if (free(n.reader)) {
              spinners.remove(t);
              waiterLeft();
              take(t, n, true);
              n.step = DONE;
              t.startWork(rmw(t), symLock, false);
              return AGAIN;
            }
            if (shouldConfer(n)) {
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
            n.conferredYieldCount = SplparConfer.yieldCount(owner);
            n.conferTarget = owner.cpu().index();
            stats.conferred();
            n.step = TRY;
            t.call(confer);
            return AGAIN;
          }
          default -> throw new IllegalStateException("bad step " + n.step);
        }
      }
    }

    @Override
    public String toString() {
      return algorithm + " " + mode.lockSymbol() + "(" + name + ")";
    }
  }

  /** A ModeLockOp for the rwlock flavours: the symbol of the out-of-line API function. */
  private abstract class ModeLockOp extends Op {
    final LockMode mode;
    final int symLock;

    ModeLockOp(LockMode mode) {
      this.mode = mode;
      this.symLock = sym(mode.lockSymbol());
    }
  }

  private final class UnlockOp extends Op {
    private final LockMode mode;

    UnlockOp(LockMode mode) {
      this.mode = mode;
    }

    @Override
    public int execute(Task t, int phase) {
      if (mode.isShared()) {
        // arch_read_unlock: lwarx, decrement, stwcx. (its cost is in the caller's hold)
        readers--;
        accounting.releasedShared(t, nodes.get(t).acquiredAt);
        touch(t);
        if (readers == 0) {
          pokeSpinners();
        }
      } else {
        released(t);
        touch(t); // arch_write_unlock: a plain store of 0
        pokeSpinners();
      }
      exitMode(t, mode);
      return NEXT;
    }

    @Override
    public String toString() {
      return algorithm + " " + mode.unlockSymbol() + "(" + name + ")";
    }
  }

  private void pokeSpinners() {
    for (int i = 0; i < spinners.size(); i++) {
      spinners.get(i).poke(costs.lineTransferNs());
    }
  }
}

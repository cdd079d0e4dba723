package org.lockvisor.locking.builtin;

import java.util.ArrayDeque;
import org.lockvisor.locking.spi.LockContext;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.SpinCondition;
import org.lockvisor.machine.Task;

/**
 * The x86/arm64 ticket spinlock (arch/x86/include/asm/spinlock.h up to 4.1:
 * {@code arch_spin_lock}, {@code arch_spin_unlock}) and, with {@code pv}, the PV ticketlock of
 * 3.12–4.1 ({@code __ticket_lock_spinning} → {@code kvm_lock_spinning}, {@code
 * __ticket_unlock_kick} → {@code kvm_unlock_kick}).
 *
 * <p>lock: {@code my = xadd(tail, 1)}; spin until {@code head == my}. unlock: {@code head++}.
 * Strict FIFO: the hand-off goes to exactly the next ticket, which notices after one cache-line
 * transfer. If that waiter's vCPU is preempted the lock is free but nobody may take it
 * (lock-waiter preemption, counted). The spin loop is inlined into the out-of-line lock API
 * function, so spinning is charged to {@code _raw_spin_lock*}.
 *
 * <p>PV: after SPIN_THRESHOLD iterations the waiter registers in {@code lock_waiting}, sets the
 * slowpath flag, re-checks its turn and halts (pv_wait); the unlocker kicks the vCPU waiting for
 * the new head ticket with a hypercall. The SPIN_THRESHOLD count is CPU time of the loop ({@code
 * Task#spinBudgetLeft}): a pause-loop exit, the directed yield of its handler, the vCPU thread
 * preempted or a guest interrupt suspend the loop and re-entry resumes it with its count, as
 * 3.12's {@code arch_spin_lock} keeps {@code count} in the guest loop across a VM exit; a restart
 * of the spin (the queue head re-watches a new holder) keeps the count too.
 */
final class TicketSpinLock extends SpinLockBase {
  private static final int DONE = 0;
  private static final int SPIN = 1;
  private static final int SPUN = 2;
  private static final int HALT = 3;
  private static final int HALTED = 4;

  private final boolean pv;
  private long head;
  private long tail;
  /** Waiters in ticket order: the first one holds ticket {@code head + 1} (or {@code head}). */
  private final ArrayDeque<Task> queue = new ArrayDeque<>();
  private final NodeTable<Node> nodes = new NodeTable<>(t -> new Node());
  private final SpinCondition turn = this::turnCondition;
  private final Program pvWait;
  private final Program pvKick;

  private static final class Node {
    long ticket;
    long waitStart;
    Task watched;
    int step;
    long budgetLeft;
    /** Registered in kvm_lock_spinning's lock_waiting (may halt or be halted). */
    boolean slowpath;
    Task kickTarget;
  }

  TicketSpinLock(LockContext context, boolean pv) {
    super(context, pv ? "pv-ticket" : "ticket");
    this.pv = pv && kernel.isGuest();
    for (LockMode m : SPIN_MODES) {
      lockOps[m.ordinal()] = new LockOp(m);
      unlockOps[m.ordinal()] = new UnlockOp(m);
    }
    this.pvWait = this.pv ? Paravirt.waitProgram(kernel, costs, "kvm_lock_spinning") : null;
    this.pvKick = this.pv
        ? Paravirt.kickProgram(machine, costs, "kvm_unlock_kick", t -> nodes.get(t).kickTarget)
        : null;
  }

  /** Spin exit: our turn, or (queue head only) a new holder to watch. */
  private boolean turnCondition(Task s) {
    Node n = nodes.get(s);
    accountHolder();
    return head == n.ticket || (queue.peekFirst() == s && owner != n.watched);
  }

  private void take(Task t, Node n) {
    Task first = queue.pollFirst();
    if (first != t) { // not checkState: its varargs would box the ticket on every take
      throw new IllegalStateException(
          String.format("%s: ticket %s taken by %s but queue head is %s", name, n.ticket, t, first));
    }
    waiterLeft();
    acquired(t, true, n.waitStart);
    Task next = queue.peekFirst();
    if (next != null) {
      next.poke(0); // the new queue head starts watching the new holder's vCPU
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
        n.ticket = tail++;
        long cost = rmw(t);
        if (n.ticket == head) {
          acquired(t, false, 0);
          n.step = DONE;
        } else {
          n.waitStart = now();
          waiterArrived();
          queue.addLast(t);
          n.step = SPIN;
          n.budgetLeft = costs.spinThresholdNs();
        }
        t.startWork(cost, symLock, false);
        return AGAIN;
      }
      for (;;) {
        switch (n.step) {
          case DONE -> {
            return NEXT;
          }
          case SPIN -> {
            if (head == n.ticket) {
              take(t, n);
              return NEXT;
            }
            if (pv && n.budgetLeft <= 0) {
              n.step = HALT;
              continue;
            }
            n.watched = owner;
            n.step = SPUN;
            t.startSpin(symLock, turn, pv ? n.budgetLeft : 0, queue.peekFirst() == t ? watchCpu(owner) : null);
            return AGAIN;
          }
          case SPUN -> {
            if (pv) {
              n.budgetLeft = t.spinTimedOut() ? 0 : t.spinBudgetLeft(); // iterations left: CPU time, not wall time
            }
            n.step = SPIN;
          }
          case HALT -> {
            // kvm_lock_spinning: register, set the slowpath flag, re-check, halt.
            n.slowpath = true;
            if (head == n.ticket) {
              n.slowpath = false;
              take(t, n);
              return NEXT;
            }
            stats.halted();
            n.step = HALTED;
            t.call(pvWait);
            return AGAIN;
          }
          case HALTED -> {
            n.slowpath = false;
            n.budgetLeft = costs.spinThresholdNs();
            n.step = SPIN;
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

  private final class UnlockOp extends ModeUnlockOp {
    UnlockOp(LockMode mode) {
      super(mode);
    }

    @Override
    public int execute(Task t, int phase) {
      if (phase == 0) {
        released(t);
        head++;
        touch(t);
        Task next = queue.peekFirst();
        if (next != null) {
          pokeNextWaiter(next);
          if (pv && nodes.get(next).slowpath) {
            nodes.get(t).kickTarget = next;
            stats.kicked();
            t.call(pvKick);
            return AGAIN;
          }
        }
      }
      exitMode(t, mode);
      return NEXT;
    }

    @Override
    public String toString() {
      return algorithm + " " + mode.unlockSymbol() + "(" + name + ")";
    }
  }

  /** arch_spin_trylock: fails unless head == tail, i.e. held or tickets taken. */
  @Override
  boolean trylockFails() {
    return owner != null || accounting.waiters() > 0;
  }
}

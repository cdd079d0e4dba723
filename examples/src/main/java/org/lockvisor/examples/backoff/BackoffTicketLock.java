package org.lockvisor.examples.backoff;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;

import java.util.ArrayDeque;
import java.util.Arrays;
import org.lockvisor.arch.spi.ArchCosts;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockContext;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.machine.Op;
import org.lockvisor.machine.SharedLine;
import org.lockvisor.machine.SpinCondition;
import org.lockvisor.machine.Task;

/**
 * A ticket spinlock whose waiters back off in proportion to their queue position, after the
 * proportional backoff proposed for x86 ticket locks (Rik van Riel, "x86,smp: proportional
 * backoff for ticket spinlocks", LKML 2012-13, not merged): a waiter {@code n} tickets from the
 * head waits about {@code n} times a unit before it reads the lock word again, so the line is not
 * hammered by every waiter at every hand-off. The unlocker increments the head and pokes the
 * waiter whose turn it now is.
 *
 * <p>How the backoff waits is the option {@code backoff}: {@code spin} waits in a loop that
 * reads the lock word ({@link Task#startSpin} on "my turn", the backoff as its budget), so the
 * unlocker's poke ends it at once; {@code delay} waits in a loop that only counts (an {@code
 * ndelay}: {@link Task#startWork}), which a poke cannot shorten (a poke reaches spins only), so
 * the lock stays idle until the new head's backoff ends. Only the algorithm lives here: the
 * framework owns lock_stat and holder-preemption accounting. Per-task state is kept by task id,
 * so an acquisition allocates nothing.
 */
final class BackoffTicketLock implements KernelLock {
  private final String name;
  private final ArchCosts costs;
  private final SharedLine word;
  private final long unitNs;
  private final boolean readsLockWord;
  private final Op[] lockOps = new Op[LockMode.values().length];
  private final Op[] unlockOps = new Op[LockMode.values().length];
  private final SpinCondition myTurn = s -> ticketOf(s) == this.head;
  private final int symSpin;
  private final int symDelay;
  /** The queue of waiters in ticket order: the first holds ticket {@code head} once it is free. */
  private final ArrayDeque<Task> waiters = new ArrayDeque<>();
  private long[] tickets = new long[64];
  private long head;
  private long tail;
  private Task owner;

  BackoffTicketLock(LockContext context, long unitNs, boolean readsLockWord) {
    this.name = context.name();
    this.costs = context.costs();
    this.word = context.lockWord();
    this.unitNs = unitNs;
    this.readsLockWord = readsLockWord;
    this.symSpin = context.kernelSymbol("ticket_spin_backoff");
    this.symDelay = context.kernelSymbol("__ndelay");
    for (LockMode m : LockMode.SPIN) {
      lockOps[m.ordinal()] = new LockOp(m, context.kernelSymbol(m.lockSymbol()));
      unlockOps[m.ordinal()] = new UnlockOp(m);
    }
  }

  private long ticketOf(Task t) {
    return tickets[t.id()];
  }

  private void setTicket(Task t, long ticket) {
    if (t.id() >= tickets.length) {
      tickets = Arrays.copyOf(tickets, Math.max(t.id() + 1, tickets.length * 2));
    }
    tickets[t.id()] = ticket;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String algorithm() {
    return BackoffTicketLockFactory.NAME;
  }

  @Override
  public boolean supports(LockMode mode) {
    return lockOps[mode.ordinal()] != null;
  }

  @Override
  public Op lock(LockMode mode) {
    checkArgument(supports(mode), "lock [%s] does not support [%s]", name, mode);
    return lockOps[mode.ordinal()];
  }

  @Override
  public Op unlock(LockMode mode) {
    checkArgument(supports(mode), "lock [%s] does not support [%s]", name, mode);
    return unlockOps[mode.ordinal()];
  }

  /** The backoff per queue position, in ns. */
  long unitNs() {
    return unitNs;
  }

  /** Whether a waiter backs off reading the lock word ({@code spin}) or counting ({@code delay}). */
  boolean readsLockWord() {
    return readsLockWord;
  }

  @Override
  public Task owner() {
    return owner;
  }

  private final class LockOp extends Op {
    private final LockMode mode;
    private final int symLock;

    LockOp(LockMode mode, int symLock) {
      this.mode = mode;
      this.symLock = symLock;
    }

    @Override
    public int execute(Task t, int phase) {
      if (phase == 0) { // xadd(&lock->tail, 1): take a ticket
        mode.enter(t);
        long ticket = tail++;
        setTicket(t, ticket);
        if (ticket != head) {
          waiters.addLast(t);
        }
        t.startWork(word.rmw(t), symLock, false);
        return AGAIN;
      }
      long position = ticketOf(t) - head;
      if (position == 0) {
        if (waiters.peekFirst() == t) {
          waiters.pollFirst();
        }
        owner = t;
        return NEXT;
      }
      long backoffNs = position * unitNs;
      if (readsLockWord) { // a loop that reads the lock word: the unlocker's poke ends it
        t.startSpin(symSpin, myTurn, backoffNs, null);
      } else { // a loop that only counts: nothing ends it early
        t.startWork(backoffNs, symDelay, false);
      }
      return AGAIN; // called again when the wait ends: read the position again
    }
  }

  private final class UnlockOp extends Op {
    private final LockMode mode;

    UnlockOp(LockMode mode) {
      this.mode = mode;
    }

    @Override
    public int execute(Task t, int phase) {
      checkState(owner == t, "%s: unlock by %s, held by %s", name, t, owner);
      owner = null;
      head++; // hand the lock to the next ticket
      Task next = waiters.peekFirst();
      if (next != null) {
        next.poke(costs.lineTransferNs()); // it sees the new head one line transfer later
      }
      mode.exit(t);
      return NEXT;
    }
  }
}

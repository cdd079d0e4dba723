package org.lockvisor.examples.mcs;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;

import java.util.Arrays;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockContext;
import org.lockvisor.arch.spi.ArchCosts;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.machine.Op;
import org.lockvisor.machine.SharedLine;
import org.lockvisor.machine.SpinCondition;
import org.lockvisor.machine.Task;

/**
 * The MCS lock of Mellor-Crummey and Scott (kernel/locking/mcs_spinlock.h {@code
 * mcs_spin_lock}/{@code mcs_spin_unlock}): each waiter appends its node with an exchange of the
 * tail and spins on its own node's {@code locked} flag; the holder hands the lock to its
 * successor by setting that flag, which the successor sees after one cache-line transfer. FIFO,
 * O(1) transfers per hand-off, and — like the ticket lock — stalled by a preempted successor.
 *
 * <p>Only the algorithm lives here. The framework ({@link LockContext}) provides the rest: the
 * lock word's {@link SharedLine} prices the tail exchange by where the line was (the machine's one
 * cache-line model, by topology distance), {@link
 * LockMode#enter}/{@link LockMode#exit} do what {@code spin_lock_irqsave} and friends disable,
 * and lock_stat, {@code perf lock contention}, lock-holder preemption and the trace's lock-hold
 * track are measured by the framework at the boundaries of these ops — this class has no
 * accounting code. Spinning is a {@link Task#startSpin} ended by the predecessor's poke, never
 * polling. Nodes are kept per task id, so an acquisition allocates nothing.
 */
final class McsSpinLock implements KernelLock {
  private final String name;
  private final ArchCosts costs;
  private final SharedLine tailLine;
  private final Op[] lockOps = new Op[LockMode.values().length];
  private final Op[] unlockOps = new Op[LockMode.values().length];
  private final SpinCondition myTurn = s -> node(s).locked;
  private final int symSpin;
  private Node[] nodes = new Node[64];
  private Node tail;
  private Task owner;

  private static final class Node {
    final Task task;
    Node next;
    boolean locked;
    boolean waited;

    Node(Task task) {
      this.task = task;
    }
  }

  McsSpinLock(LockContext context) {
    this.name = context.name();
    this.costs = context.costs();
    this.tailLine = context.lockWord();
    this.symSpin = context.kernelSymbol("mcs_spin_lock");
    for (LockMode m : LockMode.SPIN) {
      lockOps[m.ordinal()] = new LockOp(m, context.kernelSymbol(m.lockSymbol()));
      unlockOps[m.ordinal()] = new UnlockOp(m);
    }
  }

  private Node node(Task t) {
    if (t.id() >= nodes.length) {
      nodes = Arrays.copyOf(nodes, Math.max(t.id() + 1, nodes.length * 2));
    }
    Node n = nodes[t.id()];
    if (n == null) {
      n = new Node(t);
      nodes[t.id()] = n;
    }
    return n;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String algorithm() {
    return "mcs";
  }

  @Override
  public boolean supports(LockMode mode) {
    return lockOps[mode.ordinal()] != null;
  }

  @Override
  public Op lock(LockMode mode) {
    checkArgument(supports(mode), "mcs lock [%s] does not support [%s]", name, mode);
    return lockOps[mode.ordinal()];
  }

  @Override
  public Op unlock(LockMode mode) {
    checkArgument(supports(mode), "mcs lock [%s] does not support [%s]", name, mode);
    return unlockOps[mode.ordinal()];
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
      Node n = node(t);
      switch (phase) {
        case 0 -> {
          mode.enter(t);
          n.next = null;
          n.locked = false;
          Node prev = tail; // xchg(&lock->tail, node)
          tail = n;
          n.waited = prev != null;
          if (prev == null) {
            owner = t;
          } else {
            prev.next = n;
          }
          t.startWork(tailLine.rmw(t), symLock, false);
          return AGAIN;
        }
        case 1 -> {
          if (!n.waited) {
            return NEXT;
          }
          t.startSpin(symSpin, myTurn, 0, null);
          return AGAIN;
        }
        default -> {
          owner = t;
          return NEXT;
        }
      }
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
      Node n = node(t);
      owner = null;
      if (tail == n) {
        tail = null; // cmpxchg(&lock->tail, node, NULL)
      } else {
        Node next = n.next; // linked atomically with the tail exchange here, so never null
        checkState(next != null, "%s: successor of %s not linked", name, t);
        next.locked = true;
        next.task.poke(costs.lineTransferNs());
      }
      mode.exit(t);
      return NEXT;
    }
  }
}

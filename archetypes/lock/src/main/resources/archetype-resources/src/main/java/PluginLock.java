package ${package};

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;

import java.util.Arrays;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockCosts;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.locking.spi.LockStats;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Op;
import org.lockvisor.machine.SpinCondition;
import org.lockvisor.machine.Task;

/**
 * The MCS lock of Mellor-Crummey and Scott (kernel/locking/mcs_spinlock.h {@code
 * mcs_spin_lock}/{@code mcs_spin_unlock}): each waiter appends its node with an exchange of the
 * tail and spins on its own node's {@code locked} flag; the holder hands the lock to its
 * successor by setting that flag, which the successor sees after one cache-line transfer. FIFO,
 * O(1) transfers per hand-off, and — like the ticket lock — stalled by a preempted successor.
 *
 * <p>Spinning is a {@code Task.startSpin} ended by the predecessor's poke, never polling. Nodes are
 * kept per task id, so an acquisition allocates nothing.
 */
final class PluginLock implements KernelLock {
  private final String name;
  private final long handoffDelayNs;
  private final Machine machine;
  private final LockCosts costs;
  private final LockStats stats = new LockStats();
  private final Op[] lockOps = new Op[LockMode.values().length];
  private final Op[] unlockOps = new Op[LockMode.values().length];
  private final SpinCondition myTurn = s -> node(s).locked;
  private final int symSpin;
  private Node[] nodes = new Node[64];
  private Node tail;
  private Task owner;
  private long acquiredAt;
  private int lineCpu = -1;

  private static final class Node {
    final Task task;
    Node next;
    boolean locked;
    long waitStart;
    boolean waited;

    Node(Task task) {
      this.task = task;
    }
  }

  PluginLock(String name, Kernel kernel, LockCosts costs, long handoffDelayNs) {
    this.handoffDelayNs = handoffDelayNs;
    checkArgument(name != null && !name.isBlank(), "lock needs a name");
    this.name = name;
    this.machine = kernel.machine();
    this.costs = costs;
    this.symSpin = machine.symbols().symbol("mcs_spin_lock", Machine.DOMAIN_KERNEL);
    for (LockMode m : new LockMode[] {LockMode.PLAIN, LockMode.IRQ, LockMode.IRQSAVE, LockMode.BH}) {
      lockOps[m.ordinal()] = new LockOp(m);
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
    return PluginLockFactory.NAME;
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

  @Override
  public Task owner() {
    return owner;
  }

  @Override
  public LockStats stats() {
    return stats;
  }

  private boolean bounce(Task t) {
    int c = t.cpu().id();
    boolean b = lineCpu >= 0 && lineCpu != c;
    lineCpu = c;
    return b;
  }

  private void take(Task t, Node n, boolean bounced) {
    owner = t;
    acquiredAt = machine.sim().now();
    long now = machine.sim().now();
    stats.acquired(n.waited, n.waited ? now - n.waitStart : 0, bounced);
  }

  private final class LockOp extends Op {
    private final LockMode mode;
    private final int symLock;

    LockOp(LockMode mode) {
      this.mode = mode;
      this.symLock = machine.symbols().symbol(mode.lockSymbol(), Machine.DOMAIN_KERNEL);
    }

    @Override
    public int execute(Task t, int phase) {
      Node n = node(t);
      switch (phase) {
        case 0 -> {
          switch (mode) {
            case IRQ -> t.irqDisable();
            case IRQSAVE -> t.irqSave();
            default -> {}
          }
          t.preemptDisable();
          n.next = null;
          n.locked = false;
          Node prev = tail; // xchg(&lock->tail, node)
          tail = n;
          boolean bounced = bounce(t);
          n.waited = prev != null;
          if (prev == null) {
            take(t, n, bounced);
          } else {
            n.waitStart = machine.sim().now();
            prev.next = n;
          }
          t.startWork(costs.atomicNs() + (bounced ? costs.lineTransferNs() : 0), symLock, false);
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
          take(t, n, true);
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
      stats.released(machine.sim().now() - acquiredAt);
      owner = null;
      if (tail == n) {
        tail = null; // cmpxchg(&lock->tail, node, NULL)
      } else {
        Node next = n.next; // linked atomically with the tail exchange here, so never null
        checkState(next != null, "%s: successor of %s not linked", name, t);
        next.locked = true;
        next.task.poke(costs.lineTransferNs() + handoffDelayNs);
      }
      switch (mode) {
        case IRQ -> t.irqEnable();
        case IRQSAVE -> t.irqRestore();
        default -> {}
      }
      t.preemptEnable();
      return NEXT;
    }
  }
}

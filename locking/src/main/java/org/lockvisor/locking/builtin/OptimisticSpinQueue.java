package org.lockvisor.locking.builtin;

import static com.google.common.base.Preconditions.checkState;

import org.lockvisor.arch.spi.ArchCosts;
import org.lockvisor.locking.spi.LockStats;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Op;
import org.lockvisor.machine.SpinCondition;
import org.lockvisor.machine.Task;
import org.lockvisor.machine.VcpuTask;

/**
 * The optimistic spin queue ({@code struct optimistic_spin_queue}, kernel/locking/osq_lock.c):
 * an MCS queue that lets only one task at a time spin on a sleeping lock's owner. Mutexes and
 * rwsems run its ops inline in their slow paths; {@link OsqLockFactory} also exposes it alone.
 *
 * <p>{@code osq_lock}: xchg the tail; if it was empty we are the head at once; else link behind
 * the predecessor and spin on {@code node->locked} (charged to {@code osq_lock}) until it is
 * set, or until {@code need_resched()} or — with the vcpu_is_preempted check —
 * {@code vcpu_is_preempted(node_cpu(node->prev))}. A spinner that gives up unqueues in three
 * steps: (A) detach from prev with cmpxchg(prev->next, node, NULL), unless the lock was handed
 * to us meanwhile; (B) {@code osq_wait_next}: make the tail point back to prev, or take a stable
 * successor; (C) splice prev and next. {@code osq_unlock}: cmpxchg the tail back to empty, else
 * hand {@code node->locked} to the successor.
 *
 * <p>Each wait is a spin ended by a poke from the task that changes the awaited field; the
 * predecessor's vCPU is watched, so its preemption ends the spin at once when the check is on.
 * Simplification: linking behind the predecessor is atomic with the tail exchange, so the
 * transient states steps A and B wait for are short-lived here.
 */
public final class OptimisticSpinQueue {
  private static final int RET = 0;
  private static final int SPIN = 1;
  private static final int UNQUEUE_A = 2;
  private static final int UNQUEUE_B = 3;
  private static final int UNQUEUE_C = 4;
  private static final int UNLOCK_WAIT = 5;

  private final Kernel kernel;
  private final ArchCosts costs;
  private final boolean vcpuCheck;
  private final LockStats stats;
  private final int symLock;
  private final int symUnlock;
  private final NodeTable<Node> nodes = new NodeTable<>(Node::new);
  private final Op lockOp = new LockOp();
  private final Op unlockOp = new UnlockOp();
  private final SpinCondition locked = this::spinCondition;
  private final SpinCondition detached = this::unqueueCondition;
  private final SpinCondition successor = s -> this.tail == nodes.get(s) || nodes.get(s).next != null;
  private Node tail;
  private int lineCpu = -1;
  private long needReschedBailouts;
  private long preemptedBailouts;
  private long handoffsToPreempted;
  private long acquisitions;

  private static final class Node {
    final Task task;
    Node next;
    Node prev;
    Node watchedPrev;
    boolean locked;
    boolean result;
    int step;
    /** When this node was queued behind a predecessor (its spin episode's start). */
    long queuedAt;

    Node(Task task) {
      this.task = task;
    }
  }

  /**
   * An OSQ in {@code kernel}; bail-outs are also counted in {@code stats} (the owning lock's), so
   * the lock's lock_stat line shows them.
   */
  public OptimisticSpinQueue(Kernel kernel, ArchCosts costs, boolean vcpuIsPreemptedCheck, LockStats stats) {
    this.kernel = kernel;
    this.costs = costs;
    this.vcpuCheck = vcpuIsPreemptedCheck;
    this.stats = stats;
    this.symLock = kernel.machine().symbols().symbol("osq_lock", Machine.DOMAIN_KERNEL);
    this.symUnlock = kernel.machine().symbols().symbol("osq_unlock", Machine.DOMAIN_KERNEL);
  }

  /** {@code osq_lock()}; when it finishes, {@link #acquired} tells whether we are the OSQ head. */
  public Op lockOp() {
    return lockOp;
  }

  /** {@code osq_unlock()}, by the task that acquired the OSQ. */
  public Op unlockOp() {
    return unlockOp;
  }

  /** The result of the last {@code osq_lock} of {@code t}. */
  public boolean acquired(Task t) {
    return nodes.get(t).result;
  }

  /** {@code osq_is_locked()}: some task is queued or at the head (rwsem_has_spinner). */
  public boolean isLocked() {
    return tail != null;
  }

  public long needReschedBailouts() {
    return needReschedBailouts;
  }

  public long preemptedBailouts() {
    return preemptedBailouts;
  }

  /** osq_unlock hand-offs to a successor whose vCPU was preempted (it spins on after resuming). */
  public long handoffsToPreempted() {
    return handoffsToPreempted;
  }

  public long acquisitions() {
    return acquisitions;
  }

  private long rmw(Task t) {
    int c = t.cpu().id();
    boolean bounce = lineCpu >= 0 && lineCpu != c;
    lineCpu = c;
    return costs.atomicNs() + (bounce ? costs.lineTransferNs() : 0);
  }

  private boolean prevPreempted(Node n) {
    return vcpuCheck && n.prev != null && kernel.vcpuIsPreempted(n.prev.task.cpu());
  }

  private boolean spinCondition(Task s) {
    Node n = nodes.get(s);
    return n.locked || s.cpu().needResched() || prevPreempted(n) || n.prev != n.watchedPrev;
  }

  private boolean unqueueCondition(Task s) {
    Node n = nodes.get(s);
    return n.locked || n.prev.next == n;
  }

  private static void pokeIfWaiting(Node n) {
    if (n != null && (n.step == UNLOCK_WAIT || n.step == UNQUEUE_A || n.step == UNQUEUE_B)) {
      n.task.poke(0);
    }
  }

  private void handOff(Node next) {
    next.locked = true;
    Task w = next.task;
    boolean undispatched = w.onCpu() && w.cpu().vcpuTask() != null
        && w.cpu().vcpuTask().hostState() == VcpuTask.HostState.PREEMPTED;
    if (undispatched) {
      handoffsToPreempted++;
    }
    stats.osqHandoff(undispatched);
    w.poke(costs.lineTransferNs());
  }

  private final class LockOp extends Op {
    @Override
    public int execute(Task t, int phase) {
      Node n = nodes.get(t);
      if (phase == 0) {
        n.locked = false;
        n.next = null;
        n.prev = null;
        n.watchedPrev = null;
        n.result = false;
        Node old = tail;
        tail = n;
        if (old == null) {
          n.result = true;
          acquisitions++;
          n.step = RET;
        } else {
          n.prev = old;
          old.next = n;
          pokeIfWaiting(old);
          n.step = SPIN;
          n.queuedAt = kernel.machine().sim().now();
        }
        t.startWork(rmw(t), symLock, false);
        return AGAIN;
      }
      for (;;) {
        switch (n.step) {
          case RET -> {
            return NEXT;
          }
          case SPIN -> {
            if (n.locked) {
              n.result = true;
              acquisitions++;
              n.step = RET;
              stats.spinEpisode(LockStats.SpinEnd.HANDOFF, kernel.machine().sim().now() - n.queuedAt);
              continue;
            }
            if (t.cpu().needResched()) {
              needReschedBailouts++;
              stats.spinBailout();
              stats.spinEpisode(LockStats.SpinEnd.NEED_RESCHED, kernel.machine().sim().now() - n.queuedAt);
              n.step = UNQUEUE_A;
              continue;
            }
            if (prevPreempted(n)) {
              preemptedBailouts++;
              stats.spinBailout();
              stats.spinEpisode(LockStats.SpinEnd.OTHER, kernel.machine().sim().now() - n.queuedAt);
              n.step = UNQUEUE_A;
              // the loop's first test read it; after a spin, that read was charged with the spin
              if (n.watchedPrev == null && kernel.vcpuPreemptedReads().startCheck(t, vcpuCheck, symLock)) {
                return AGAIN;
              }
              continue;
            }
            n.watchedPrev = n.prev;
            // osq_lock: need_resched() || vcpu_is_preempted(node_cpu(node->prev)) every iteration
            t.startSpin(symLock, locked, 0, n.prev.task.cpu(), kernel.vcpuPreemptedReads().spinCheckPeriodNs(vcpuCheck, costs.pauseNs(), 1));
            return AGAIN;
          }
          case UNQUEUE_A -> {
            Node prev = n.prev;
            if (prev.next == n) {
              prev.next = null; // cmpxchg(&prev->next, node, NULL)
              n.step = UNQUEUE_B;
              continue;
            }
            if (n.locked) { // handed the lock while we were leaving: keep it
              n.result = true;
              acquisitions++;
              n.step = RET;
              continue;
            }
            t.startSpin(symLock, detached, 0, null);
            return AGAIN;
          }
          case UNQUEUE_B -> {
            Node prev = n.prev;
            if (tail == n) { // osq_wait_next: point the tail back to prev
              tail = prev;
              pokeIfWaiting(prev);
              n.prev = null;
              n.step = RET;
              t.startWork(rmw(t), symLock, false);
              return AGAIN;
            }
            if (n.next != null) {
              n.step = UNQUEUE_C;
              continue;
            }
            t.startSpin(symLock, successor, 0, null);
            return AGAIN;
          }
          case UNQUEUE_C -> {
            Node prev = n.prev;
            Node next = n.next;
            n.next = null;
            next.prev = prev;
            prev.next = next;
            next.task.poke(0); // it watches a new predecessor now
            pokeIfWaiting(prev);
            n.prev = null;
            n.step = RET;
            t.startWork(rmw(t), symLock, false);
            return AGAIN;
          }
          default -> throw new IllegalStateException("bad osq step " + n.step);
        }
      }
    }

    @Override
    public String toString() {
      return "osq_lock";
    }
  }

  private final class UnlockOp extends Op {
    @Override
    public int execute(Task t, int phase) {
      Node n = nodes.get(t);
      if (phase == 0) {
        checkState(n.result, "osq_unlock by %s, which does not hold the OSQ", t);
        n.step = UNLOCK_WAIT;
        long cost = rmw(t);
        if (!release(n)) {
          t.startWork(cost, symUnlock, false);
          return AGAIN;
        }
        t.startWork(cost, symUnlock, false);
        n.step = RET;
        return AGAIN;
      }
      if (n.step == RET) {
        n.result = false;
        return NEXT;
      }
      if (release(n)) {
        n.step = RET;
        n.result = false;
        return NEXT;
      }
      t.startSpin(symUnlock, successor, 0, null);
      return AGAIN;
    }

    /** The uncontended cmpxchg, or the hand-off to the successor; false if it must wait. */
    private boolean release(Node n) {
      if (tail == n) {
        tail = null;
        return true;
      }
      Node next = n.next;
      if (next != null) {
        n.next = null;
        handOff(next);
        return true;
      }
      return false;
    }

    @Override
    public String toString() {
      return "osq_unlock";
    }
  }
}

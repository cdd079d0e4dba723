package org.lockvisor.locking.builtin;

import static com.google.common.base.Preconditions.checkState;

import org.lockvisor.locking.spi.LockContext;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.machine.Op;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.SpinCondition;
import org.lockvisor.machine.Task;

/**
 * The queued spinlock (kernel/locking/qspinlock.c, {@code queued_spin_lock_slowpath}) and, with
 * {@code pv}, its paravirt variant (kernel/locking/qspinlock_paravirt.h, ~4.8).
 *
 * <p>Lock word = locked byte (the owner) + pending bit + MCS tail. Fast path: cmpxchg 0 → locked.
 * Slow path: if only the owner holds the word, set pending and spin on the locked byte (no MCS
 * node); otherwise queue an MCS node, spin on {@code node->locked} until the predecessor makes us
 * the queue head, then spin until locked and pending are clear, take the lock and pass
 * {@code node->locked} to the successor. FIFO among queued waiters, O(1) line transfers per
 * hand-off. Contended time is charged to {@code native_queued_spin_lock_slowpath} under the lock
 * API function.
 *
 * <p>PV: one steal attempt at entry ({@code pv_queued_spin_steal_lock}); non-head waiters spin
 * SPIN_THRESHOLD then halt ({@code pv_wait_node}), earlier if the predecessor is halted or (with
 * the vcpu_is_preempted check) preempted; the queue head sets pending, spins SPIN_THRESHOLD,
 * then hashes itself, sets {@code _Q_SLOW_VAL} and halts ({@code pv_wait_head_or_lock}); a new
 * owner that hands the MCS lock to a halted successor hashes it and defers the kick to its own
 * unlock ({@code pv_kick_node}); an unlock that finds {@code _Q_SLOW_VAL} unhashes and kicks
 * ({@code __pv_queued_spin_unlock_slowpath}). Simplifications: the wait-early check is made on
 * every predecessor state change rather than every 256 iterations; linking into the queue is
 * atomic with the tail exchange. The reads themselves are priced as the kernel makes them: with
 * the check on ({@code vcpu_is_preempted(prev->cpu)} in {@code pv_wait_early}, added in 2017 by
 * 75437bb304b2 "locking/pvqspinlock: Don't wait if vCPU is preempted" and reverted in 2019 by
 * Wanpeng Li for a performance regression), one read of {@code VCPU_PREEMPTED_CHECK}
 * every 256th iteration, charged within the spin, and the SPIN_THRESHOLD budget grows by those
 * reads.
 */
final class QueuedSpinLock extends SpinLockBase {
  private static final int DONE = 0;
  private static final int PENDING = 2;
  private static final int PENDING_SPUN = 3;
  private static final int WAIT_NODE = 5;
  private static final int WAIT_NODE_SPUN = 6;
  private static final int PV_HALT_NODE = 7;
  private static final int PV_NODE_WOKEN = 8;
  private static final int HEAD = 9;
  private static final int HEAD_SPUN = 10;
  private static final int PV_HEAD_LOOP = 11;
  private static final int PV_HEAD_SPIN = 12;
  private static final int PV_HEAD_SPUN = 13;
  private static final int PV_HEAD_HALT = 14;

  private static final int VCPU_RUNNING = 0;
  private static final int VCPU_HALTED = 1;
  private static final int VCPU_HASHED = 2;

  private final boolean pv;
  private Task pending;
  private Node mcsHead;
  private Node mcsTail;
  /** PV: the locked byte holds _Q_SLOW_VAL (a hashed waiter must be kicked at unlock). */
  private boolean slowVal;
  /** PV: this lock's entry in the pv hash table. */
  private Node hashed;
  /** PV: the queue head's set_pending() while it spins (blocks stealers). */
  private boolean headPending;

  private final NodeTable<Node> nodes = new NodeTable<>(Node::new);
  private final Program[] slowPaths = new Program[LockMode.values().length];
  private final SpinCondition ownerGone = this::ownerGoneCondition;
  private final SpinCondition nodeLocked = this::nodeLockedCondition;
  private final SpinCondition headFree = this::headFreeCondition;
  private final Program pvWait;
  private final Program pvKick;
  private final int symSlow;

  private static final class Node {
    final Task task;
    Node next;
    Node prev;
    boolean locked;
    int state;
    int step;
    long waitStart;
    Task watched;
    long budgetLeft;
    boolean lp;
    Task kickTarget;

    Node(Task task) {
      this.task = task;
    }
  }

  QueuedSpinLock(LockContext context, boolean pv) {
    super(context, pv ? "pv-qspinlock" : "qspinlock");
    this.pv = pv && kernel.isGuest();
    this.symSlow = sym(pv ? "__pv_queued_spin_lock_slowpath" : "native_queued_spin_lock_slowpath");
    for (LockMode m : SPIN_MODES) {
      lockOps[m.ordinal()] = new LockOp(m);
      unlockOps[m.ordinal()] = new UnlockOp(m);
      slowPaths[m.ordinal()] = Program.named(m.lockSymbol()).op(new SlowOp()).build();
    }
    this.pvWait = this.pv ? Paravirt.waitProgram(kernel, costs, "kvm_wait") : null;
    this.pvKick = this.pv
        ? Paravirt.kickProgram(machine, costs, "__pv_queued_spin_unlock_slowpath", t -> nodes.get(t).kickTarget)
        : null;
  }

  private boolean wordIsZero() {
    return owner == null && pending == null && mcsTail == null && !headPending;
  }

  private boolean ownerGoneCondition(Task s) {
    accountHolder();
    return owner == null || owner != nodes.get(s).watched;
  }

  private boolean nodeLockedCondition(Task s) {
    Node n = nodes.get(s);
    return n.locked || (pv && waitEarly(n));
  }

  private boolean headFreeCondition(Task s) {
    accountHolder();
    return (owner == null && (pv || pending == null)) || owner != nodes.get(s).watched;
  }

  /** pv_wait_early: the predecessor is not running (halted, or its vCPU is preempted). */
  private boolean waitEarly(Node n) {
    Node p = n.prev;
    return p != null && (p.state != VCPU_RUNNING || vcpuIsPreempted(p.task));
  }

  /** The queue head takes the lock and passes the MCS lock on ("locked:" in the slow path). */
  private void takeFromQueue(Task t, Node n) {
    checkState(mcsHead == n, "%s: %s is not the queue head", name, t);
    Node next = n.next;
    if (next == null) {
      checkState(mcsTail == n, "%s: queue corrupt at %s", name, t);
      mcsHead = null;
      mcsTail = null;
    } else {
      mcsHead = next;
      next.prev = null;
    }
    n.next = null;
    n.prev = null;
    touch(t);
    waiterLeft();
    acquired(t, true, n.waitStart);
    if (next != null) {
      next.locked = true;
      if (pv && next.state == VCPU_HALTED) {
        // pv_kick_node: defer the kick to our unlock
        next.state = VCPU_HASHED;
        slowVal = true;
        hashed = next;
      } else {
        next.task.poke(costs.lineTransferNs());
      }
    }
  }

  private void takeWithoutQueue(Task t, Node n) {
    touch(t);
    waiterLeft();
    acquired(t, true, n.waitStart);
    if (mcsHead != null) {
      mcsHead.task.poke(0); // the queue head now watches the new holder
    }
  }

  /** Slow-path entry: pending bit if only the owner holds the word, else (pv: steal or) queue. */
  private void enter(Task t, Node n) {
    if (!pv) {
      if (wordIsZero()) {
        takeWithoutQueue(t, n);
        n.step = DONE;
        return;
      }
      if (pending == null && mcsTail == null) {
        pending = t;
        n.step = PENDING;
        return;
      }
    } else if (owner == null && !headPending) {
      takeWithoutQueue(t, n); // pv_queued_spin_steal_lock
      n.step = DONE;
      return;
    }
    n.locked = false;
    n.next = null;
    n.state = VCPU_RUNNING;
    n.lp = false;
    // pv_wait_node: SPIN_THRESHOLD iterations, every 256th (PV_PREV_CHECK_MASK) reading vcpu_is_preempted
    n.budgetLeft = costs.spinThresholdNs()
        + (pv ? (costs.spinThresholdLoops() >> 8) * (context.spinCheckPeriodNs(256) > 0 ? kernel.vcpuPreemptedReads().checkNs() : 0) : 0);
    n.prev = mcsTail;
    if (mcsTail != null) {
      mcsTail.next = n;
    } else {
      mcsHead = n;
    }
    mcsTail = n;
    n.step = n.prev != null ? WAIT_NODE : (pv ? PV_HEAD_LOOP : HEAD);
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
          if (wordIsZero()) {
            acquired(t, false, 0);
            n.step = DONE;
          } else {
            // the slow path's entry (pending bit, steal or xchg_tail) takes effect with this RMW
            n.waitStart = now();
            waiterArrived();
            enter(t, n);
            if (n.step != DONE) {
              cost += costs.atomicNs();
            }
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

    @Override
    public String toString() {
      return algorithm + " " + mode.lockSymbol() + "(" + name + ")";
    }
  }

  private final class SlowOp extends Op {
    @Override
    public int execute(Task t, int phase) {
      Node n = nodes.get(t);
      for (;;) {
        switch (n.step) {
          case DONE -> {
            return NEXT;
          }
          case PENDING -> {
            if (owner == null) {
              pending = null;
              takeWithoutQueue(t, n);
              n.step = DONE;
              t.startWork(costs.atomicNs(), symSlow, false); // clear_pending_set_locked
              return AGAIN;
            }
            n.watched = owner;
            n.step = PENDING_SPUN;
            t.startSpin(symSlow, ownerGone, 0, watchCpu(owner));
            return AGAIN;
          }
          case PENDING_SPUN -> n.step = PENDING;
          case WAIT_NODE -> {
            if (n.locked) {
              n.step = pv ? PV_HEAD_LOOP : HEAD;
              if (pv) {
                n.lp = n.state == VCPU_HASHED;
              }
              continue;
            }
            if (pv && (n.budgetLeft <= 0 || waitEarly(n))) {
              n.step = PV_HALT_NODE;
              continue;
            }
            n.step = WAIT_NODE_SPUN;
            t.startSpin(symSlow, nodeLocked, pv ? n.budgetLeft : 0, pv ? watchCpu(n.prev.task) : null,
                pv ? context.spinCheckPeriodNs(256) : 0);
            return AGAIN;
          }
          case WAIT_NODE_SPUN -> {
            if (pv) {
              n.budgetLeft = t.spinTimedOut() ? 0 : t.spinBudgetLeft(); // iterations left: CPU time, not wall time
            }
            n.step = WAIT_NODE;
          }
          case PV_HALT_NODE -> {
            n.state = VCPU_HALTED;
            if (n.locked) {
              n.state = VCPU_RUNNING;
              n.step = WAIT_NODE;
              continue;
            }
            stats.halted();
            n.step = PV_NODE_WOKEN;
            t.call(pvWait);
            return AGAIN;
          }
          case PV_NODE_WOKEN -> {
            if (n.state == VCPU_HALTED) {
              n.state = VCPU_RUNNING; // a hashed state set by pv_kick_node stays
            }
            n.budgetLeft = costs.spinThresholdNs();
            n.step = WAIT_NODE;
          }
          case HEAD -> {
            if (owner == null && pending == null) {
              takeFromQueue(t, n);
              n.step = DONE;
              continue;
            }
            n.watched = owner;
            n.step = HEAD_SPUN;
            t.startSpin(symSlow, headFree, 0, watchCpu(owner != null ? owner : pending));
            return AGAIN;
          }
          case HEAD_SPUN -> n.step = HEAD;
          case PV_HEAD_LOOP -> {
            n.state = VCPU_RUNNING;
            headPending = true;
            n.budgetLeft = costs.spinThresholdNs();
            n.step = PV_HEAD_SPIN;
          }
          case PV_HEAD_SPIN -> {
            if (owner == null) {
              headPending = false; // trylock_clear_pending
              takeFromQueue(t, n);
              n.step = DONE;
              continue;
            }
            if (n.budgetLeft <= 0) {
              n.step = PV_HEAD_HALT;
              continue;
            }
            n.watched = owner;
            n.step = PV_HEAD_SPUN;
            t.startSpin(symSlow, headFree, n.budgetLeft, watchCpu(owner));
            return AGAIN;
          }
          case PV_HEAD_SPUN -> {
            n.budgetLeft = t.spinTimedOut() ? 0 : t.spinBudgetLeft(); // iterations left: CPU time, not wall time
            n.step = PV_HEAD_SPIN;
          }
          case PV_HEAD_HALT -> {
            headPending = false; // clear_pending
            if (!n.lp) {
              n.lp = true;
              if (owner == null) { // xchg(locked, _Q_SLOW_VAL) found it free
                takeFromQueue(t, n);
                n.step = DONE;
                continue;
              }
              hashed = n;
              slowVal = true;
            }
            n.state = VCPU_HASHED;
            n.step = PV_HEAD_LOOP;
            if (owner != null && slowVal) { // pv_wait(&lock->locked, _Q_SLOW_VAL)
              stats.halted();
              t.call(pvWait);
              return AGAIN;
            }
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
      if (phase == 0) {
        released(t);
        touch(t);
        Task next = pending != null ? pending : (mcsHead != null ? mcsHead.task : null);
        if (next != null) {
          pokeNextWaiter(next);
        }
        if (pv && slowVal) {
          slowVal = false;
          Node h = hashed;
          hashed = null;
          if (h != null) {
            nodes.get(t).kickTarget = h.task;
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

  /** queued_spin_trylock: any of locked, pending or tail makes the word non-zero. */
  @Override
  boolean trylockFails() {
    return owner != null || accounting.waiters() > 0;
  }
}

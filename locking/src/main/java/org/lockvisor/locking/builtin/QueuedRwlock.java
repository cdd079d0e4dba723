package org.lockvisor.locking.builtin;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.lockvisor.locking.spi.LockContext;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.machine.Op;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.SharedLine;
import org.lockvisor.machine.SpinCondition;
import org.lockvisor.machine.Task;

/**
 * The queued rwlock of 4.x x86 and arm64 kernels (kernel/locking/qrwlock.c and
 * include/asm-generic/qrwlock.h, 4.8: {@code queued_read_lock}, {@code queued_write_lock}, {@code
 * queued_read_lock_slowpath}, {@code queued_write_lock_slowpath}, {@code
 * rspin_until_writer_unlock}). The lock word {@code cnts} holds the reader count ({@code
 * _QR_BIAS} each) and the writer byte ({@code wmode}: {@code _QW_LOCKED} for the holder, {@code
 * _QW_WAITING} for a writer waiting for readers to drain); {@code wait_lock} is an arch spinlock
 * that queues the waiters.
 *
 * <p>read_lock adds its bias ({@code atomic_add_return}) and is done unless the writer byte is
 * set. Then, in interrupt context ({@code in_interrupt()}), it keeps its bias and spins only while
 * a writer holds the lock: a merely waiting writer does not stop it. Outside interrupt context it
 * takes its bias back, queues on {@code wait_lock}, adds its bias again as the queue head and
 * spins until no writer holds the lock, then releases {@code wait_lock} to the next waiter. So a
 * new reader queues behind a waiting writer. write_lock is a cmpxchg from 0 to {@code _QW_LOCKED};
 * failing, it queues on {@code wait_lock}, retries the cmpxchg, else waits for the writer byte to
 * clear, sets {@code _QW_WAITING}, spins until only that flag is left and turns it into {@code
 * _QW_LOCKED}, then releases {@code wait_lock}. Unlocks: read_unlock subtracts its bias, write_unlock
 * stores 0 in the writer byte.
 *
 * <p>Symbols as perf shows them: the fast paths are inline in the out-of-line {@code
 * _raw_read_lock*}/{@code _raw_write_lock*} (kernel/locking/spinlock.c); spinning in the slow
 * path is charged to {@code queued_read_lock_slowpath}/{@code queued_write_lock_slowpath} under
 * them, and waiting in the {@code wait_lock} queue to {@code native_queued_spin_lock_slowpath}
 * under the slow path ({@code arch_spin_lock} is inline). Left out: {@code wait_lock} is a FIFO
 * queue whose head takes it when released (the queued spinlock's order and one line transfer per
 * hand-off) without the qspinlock's pending bit or the paravirt halting of {@code pv-qspinlock}
 * waiters; the x86 fast-path unfairness ({@code queued_write_lock}'s cmpxchg can overtake queued
 * waiters when {@code cnts} is 0) is kept, as in the kernel.
 */
final class QueuedRwlock extends RwlockBase {
  private static final int DONE = 0;
  private static final int R_IRQ_SPIN = 1;
  private static final int R_SUB = 2;
  private static final int WAIT_LOCK = 3;
  private static final int WAIT_LOCK_QUEUED = 4;
  private static final int R_ADD = 5;
  private static final int R_SPIN = 6;
  private static final int W_TRY = 7;
  private static final int W_SET_WAITING = 8;
  private static final int W_DRAIN = 9;
  private static final int UNLOCK_WAIT_LOCK = 10;

  /** _QW_WAITING: a writer holding wait_lock waits for the readers to drain. */
  private boolean writerWaiting;
  /** The holder of wait_lock, and its FIFO queue. */
  private Node waitHolder;
  private final ArrayDeque<Node> waitQueue = new ArrayDeque<>();
  /** Interrupt-context readers spinning until the writer unlocks. */
  private final List<Task> irqSpinners = new ArrayList<>();
  private final SharedLine waitLine;
  private final NodeTable<Node> nodes = new NodeTable<>(Node::new);
  private final Program[] slowPaths = new Program[LockMode.values().length];
  private final Program readWaitLock;
  private final Program writeWaitLock;
  private final SpinCondition writerGone = this::writerGoneCondition;
  private final SpinCondition readersDrained = this::readersDrainedCondition;
  private final SpinCondition waitLockGranted = s -> waitHolder == nodes.get(s);
  private final int symReadSlow;
  private final int symWriteSlow;
  private final int symWaitLock;

  private static final class Node {
    final Task task;
    boolean reader;
    int step;
    long waitStart;
    long acquiredAt;
    Task watched;

    Node(Task task) {
      this.task = task;
    }
  }

  QueuedRwlock(LockContext context) {
    super(context, "qrwlock");
    this.waitLine = context.newCacheLine("wait_lock");
    this.symReadSlow = sym("queued_read_lock_slowpath");
    this.symWriteSlow = sym("queued_write_lock_slowpath");
    this.symWaitLock = sym("native_queued_spin_lock_slowpath");
    for (LockMode m : LockMode.RWLOCK) {
      lockOps[m.ordinal()] = new LockOp(m);
      unlockOps[m.ordinal()] = new UnlockOp(m);
      slowPaths[m.ordinal()] = Program.named(m.lockSymbol()).op(new SlowOp()).build();
    }
    this.readWaitLock = Program.named("queued_read_lock_slowpath").op(new WaitLockOp()).build();
    this.writeWaitLock = Program.named("queued_write_lock_slowpath").op(new WaitLockOp()).build();
  }

  /** What cnts == 0 means: no reader bias, no writer byte. */
  private boolean wordIsZero() {
    return readers == 0 && owner == null && !writerWaiting;
  }

  private boolean writerGoneCondition(Task s) {
    accountHolder();
    return owner == null || owner != nodes.get(s).watched;
  }

  private boolean readersDrainedCondition(Task s) {
    return readers == 0;
  }

  private void readerTakes(Task t, Node n, boolean contended) {
    if (contended) {
      waiterLeft();
    }
    acquiredShared(t, contended, n.waitStart);
    n.acquiredAt = now();
  }

  /** arch_spin_unlock(&lock->wait_lock): the next queued waiter becomes the head. */
  private void releaseWaitLock(Task t) {
    waitLine.store(t);
    waitHolder = waitQueue.poll();
    if (waitHolder != null) {
      waitHolder.task.poke(costs.lineTransferNs());
    }
  }

  private final class LockOp extends Op {
    private final LockMode mode;
    private final int symLock;

    LockOp(LockMode mode) {
      this.mode = mode;
      this.symLock = sym(mode.lockSymbol());
    }

    @Override
    public int execute(Task t, int phase) {
      Node n = nodes.get(t);
      switch (phase) {
        case 0 -> {
          enterMode(t, mode);
          n.reader = mode.isShared();
          long cost = rmw(t);
          if (n.reader) {
            readers++; // atomic_add_return_acquire(_QR_BIAS, &lock->cnts)
            if (owner == null && !writerWaiting) {
              readerTakes(t, n, false);
              n.step = DONE;
            } else {
              n.waitStart = now();
              waiterArrived();
              n.step = t.inInterrupt() ? R_IRQ_SPIN : R_SUB; // in_interrupt(): keep the bias
            }
          } else if (wordIsZero()) { // atomic_cmpxchg_acquire(&lock->cnts, 0, _QW_LOCKED)
            acquired(t, false, 0);
            n.step = DONE;
          } else {
            n.waitStart = now();
            waiterArrived();
            n.step = WAIT_LOCK;
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

  /** queued_read_lock_slowpath / queued_write_lock_slowpath. */
  private final class SlowOp extends Op {
    @Override
    public int execute(Task t, int phase) {
      Node n = nodes.get(t);
      int symSlow = n.reader ? symReadSlow : symWriteSlow;
      for (;;) {
        switch (n.step) {
          case DONE -> {
            return NEXT;
          }
          case R_IRQ_SPIN -> { // rspin_until_writer_unlock with the bias kept
            if (owner == null) {
              irqSpinners.remove(t);
              readerTakes(t, n, true);
              n.step = DONE;
              continue;
            }
            if (!irqSpinners.contains(t)) {
              irqSpinners.add(t);
            }
            n.watched = owner;
            t.startSpin(symSlow, writerGone, 0, watchCpu(owner));
            return AGAIN;
          }
          case R_SUB -> { // atomic_sub(_QR_BIAS, &lock->cnts)
            readers--;
            pokeDrainingWriter();
            n.step = WAIT_LOCK;
            t.startWork(rmw(t), symSlow, false);
            return AGAIN;
          }
          case WAIT_LOCK -> { // arch_spin_lock(&lock->wait_lock)
            long cost = waitLine.rmw(t);
            if (waitHolder == null) {
              waitHolder = n;
              n.step = n.reader ? R_ADD : W_TRY;
            } else {
              waitQueue.add(n);
              n.step = WAIT_LOCK_QUEUED;
            }
            t.startWork(cost, symSlow, false);
            return AGAIN;
          }
          case WAIT_LOCK_QUEUED -> {
            n.step = n.reader ? R_ADD : W_TRY;
            if (waitHolder != n) {
              t.call(n.reader ? readWaitLock : writeWaitLock);
              return AGAIN;
            }
          }
          case R_ADD -> { // atomic_fetch_add_acquire(_QR_BIAS, &lock->cnts)
            readers++;
            n.step = R_SPIN;
            t.startWork(rmw(t), symSlow, false);
            return AGAIN;
          }
          case R_SPIN -> { // rspin_until_writer_unlock
            if (owner == null) {
              readerTakes(t, n, true);
              n.step = UNLOCK_WAIT_LOCK;
              continue;
            }
            n.watched = owner;
            t.startSpin(symSlow, writerGone, 0, watchCpu(owner));
            return AGAIN;
          }
          case W_TRY -> { // !cnts && cmpxchg(cnts, 0, _QW_LOCKED)
            if (wordIsZero()) {
              waiterLeft();
              acquired(t, true, n.waitStart);
              n.step = UNLOCK_WAIT_LOCK;
              t.startWork(rmw(t), symSlow, false);
              return AGAIN;
            }
            n.step = W_SET_WAITING;
          }
          case W_SET_WAITING -> { // wait for wmode == 0, then cmpxchg(wmode, 0, _QW_WAITING)
            if (owner == null) {
              writerWaiting = true;
              n.step = W_DRAIN;
              t.startWork(rmw(t), symSlow, false);
              return AGAIN;
            }
            n.watched = owner;
            t.startSpin(symSlow, writerGone, 0, watchCpu(owner));
            return AGAIN;
          }
          case W_DRAIN -> { // cnts == _QW_WAITING && cmpxchg(cnts, _QW_WAITING, _QW_LOCKED)
            if (readers == 0) {
              writerWaiting = false;
              waiterLeft();
              acquired(t, true, n.waitStart);
              n.step = UNLOCK_WAIT_LOCK;
              t.startWork(rmw(t), symSlow, false);
              return AGAIN;
            }
            t.startSpin(symSlow, readersDrained, 0, null);
            return AGAIN;
          }
          case UNLOCK_WAIT_LOCK -> {
            releaseWaitLock(t);
            n.step = DONE;
          }
          default -> throw new IllegalStateException("bad step " + n.step);
        }
      }
    }
  }

  /** Waiting in the wait_lock queue (arch_spin_lock inline: native_queued_spin_lock_slowpath). */
  private final class WaitLockOp extends Op {
    @Override
    public int execute(Task t, int phase) {
      if (waitHolder == nodes.get(t)) {
        return NEXT;
      }
      t.startSpin(symWaitLock, waitLockGranted, 0, null);
      return AGAIN;
    }
  }

  /** The writer holding wait_lock with _QW_WAITING set sees the readers drain. */
  private void pokeDrainingWriter() {
    if (readers == 0 && writerWaiting && waitHolder != null) {
      waitHolder.task.poke(costs.lineTransferNs());
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
        readers--; // atomic_sub_return_release(_QR_BIAS, &lock->cnts)
        accounting.releasedShared(t, nodes.get(t).acquiredAt);
        touch(t);
        pokeDrainingWriter();
      } else {
        released(t);
        touch(t); // smp_store_release(&lock->wmode, 0)
        for (int i = 0; i < irqSpinners.size(); i++) {
          irqSpinners.get(i).poke(costs.lineTransferNs());
        }
        if (waitHolder != null) {
          waitHolder.task.poke(costs.lineTransferNs());
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
}

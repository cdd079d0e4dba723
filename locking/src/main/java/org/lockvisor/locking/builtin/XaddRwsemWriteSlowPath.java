package org.lockvisor.locking.builtin;

import static org.lockvisor.locking.builtin.BaseLock.needResched;
import static org.lockvisor.locking.builtin.OwnerSpinningLock.DONE;
import static org.lockvisor.locking.builtin.XaddRwsemCore.COUNT_SPUN;
import static org.lockvisor.locking.builtin.XaddRwsemCore.OSQ_LOCK;
import static org.lockvisor.locking.builtin.XaddRwsemCore.OSQ_UNLOCK_FAIL;
import static org.lockvisor.locking.builtin.XaddRwsemCore.OSQ_UNLOCK_OK;
import static org.lockvisor.locking.builtin.XaddRwsemCore.RELOCK;
import static org.lockvisor.locking.builtin.XaddRwsemCore.SLOW;
import static org.lockvisor.locking.builtin.XaddRwsemCore.SPIN_LOOP;
import static org.lockvisor.locking.builtin.XaddRwsemCore.SPUN;
import static org.lockvisor.locking.builtin.XaddRwsemCore.UNLOCK_AND_SLEEP;
import static org.lockvisor.locking.builtin.XaddRwsemCore.UNLOCK_GOT;
import static org.lockvisor.locking.builtin.XaddRwsemCore.WAIT_LOCK;
import static org.lockvisor.locking.builtin.XaddRwsemCore.WAIT_LOOP;
import static org.lockvisor.locking.builtin.XaddRwsemCore.WOKEN;

import org.lockvisor.machine.Op;
import org.lockvisor.machine.Task;
import org.lockvisor.machine.TaskState;

/**
 * The writer's slow path of {@link XaddRwsem}. Split out of {@link XaddRwsem}: it reads and changes the rwsem's
 * state through {@link XaddRwsemCore} only, never the lock's own class. {@code rwsem_down_write_failed} of
 * kernel/locking/rwsem-xadd.c (v4.7/v4.8): {@code rwsem_optimistic_spin} — {@code
 * rwsem_can_spin_on_owner} (with the vcpu_is_preempted read where the arch prices it), the OSQ,
 * {@code rwsem_spin_on_owner} and, in 4.7, the loop round an owner-less lock held by readers,
 * {@code rwsem_try_write_lock_unqueued} — then queueing under {@code wait_lock} and sleeping
 * until {@code rwsem_try_write_lock} succeeds. The two versions' differences are described on
 * {@link XaddRwsem}. One op per rwsem; a writer's progress lives in its {@link XaddRwsemCore.Node}
 * ({@code step}), so the op allocates nothing.
 */
final class XaddRwsemWriteSlowPath extends Op {
  private final XaddRwsemCore sem;

  XaddRwsemWriteSlowPath(XaddRwsemCore sem) {
    this.sem = sem;
  }

  @Override
  public int execute(Task t, int phase) {
    XaddRwsemCore.Node n = sem.nodes.get(t);
    for (;;) {
      switch (n.step) {
        case SLOW -> {
          // rwsem_optimistic_spin: rwsem_can_spin_on_owner
          Task o = sem.owner;
          boolean canSpin = sem.optimisticSpin && !needResched(t) && sem.canSpinOnOwner(o);
          if (!canSpin) {
            n.step = WAIT_LOCK;
            if (sem.optimisticSpin && !needResched(t) && o != null && o.onCpu()
                && sem.context.startVcpuPreemptedCheck(t, sem.symCanSpin)) {
              return AGAIN; // the read that refused the spin
            }
            continue;
          }
          t.preemptDisable();
          n.step = OSQ_LOCK;
          if (o != null && sem.context.startVcpuPreemptedCheck(t, sem.symCanSpin)) {
            return AGAIN; // rwsem_can_spin_on_owner read vcpu_is_preempted
          }
        }
        case OSQ_LOCK -> {
          if (n.inline.run(sem.osq.lockOp(), t) == AGAIN) {
            return AGAIN;
          }
          if (!sem.osq.acquired(t)) {
            t.preemptEnable();
            n.step = WAIT_LOCK;
            continue;
          }
          n.step = SPIN_LOOP;
        }
        case SPIN_LOOP -> {
          Task o = sem.owner;
          if (o != null) {
            if (sem.spinOnOwnerOrBail(t, n, o, SPUN, OSQ_UNLOCK_FAIL, sem.symSpinOnOwner)) {
              return AGAIN;
            }
            continue;
          }
          if (sem.readerOwned) { // 4.8: rwsem_spin_on_owner returns !rwsem_owner_is_reader
            n.step = OSQ_UNLOCK_FAIL;
            continue;
          }
          if (sem.readers > 0) {
            // try_write_lock_unqueued fails; if (!sem.owner && need_resched()) break; else
            // cpu_relax() and round again (4.7: the count's sem.readers; 4.8 cannot get here, its
            // sem.readers mark the sem.owner field)
            if (needResched(t)) {
              n.step = OSQ_UNLOCK_FAIL;
              continue;
            }
            sem.ownerSpinner = t;
            n.step = COUNT_SPUN;
            t.startSpin(sem.symDownWriteFailed, sem.countChanged, 0, null);
            return AGAIN;
          }
          // try_write_lock_unqueued
          sem.ownerSpinner = null;
          sem.takeWrite(t, n, true);
          sem.stats.spinAcquired();
          n.step = OSQ_UNLOCK_OK;
          t.startWork(sem.costs.atomicNs(), sem.symDownWrite, false);
          return AGAIN;
        }
        case SPUN -> {
          if (sem.ownerSpinGaveUp(t, n)) {
            n.step = OSQ_UNLOCK_FAIL;
          } else if (sem.version == XaddRwsemCore.KernelVersion.V4_7 && sem.owner == null && sem.readers > 0) {
            // 4.7: the sem.owner left; "check the counter": held by sem.readers, stop
            n.step = OSQ_UNLOCK_FAIL;
          } else {
            n.step = SPIN_LOOP;
          }
        }
        case COUNT_SPUN -> {
          if (sem.ownerSpinner == t) {
            sem.ownerSpinner = null;
          }
          n.step = SPIN_LOOP;
        }
        case OSQ_UNLOCK_OK -> {
          return sem.osqUnlockAcquired(t, n);
        }
        case OSQ_UNLOCK_FAIL -> {
          if (sem.ownerSpinner == t) {
            sem.ownerSpinner = null;
          }
          if (n.inline.run(sem.osq.unlockOp(), t) == AGAIN) {
            return AGAIN;
          }
          n.step = WAIT_LOCK;
          if (t.preemptEnable()) {
            return AGAIN;
          }
        }
        case WAIT_LOCK -> {
          if (n.inline.run(sem.waitLockIrq, t) == AGAIN) {
            return AGAIN;
          }
          sem.waitList.addLast(t);
          n.step = WAIT_LOOP;
        }
        case WAIT_LOOP -> {
          if (sem.noActiveHolder()) { // rwsem_try_write_lock
            sem.waitList.remove(t);
            sem.takeWrite(t, n, true);
            n.step = UNLOCK_GOT;
            continue;
          }
          t.setState(TaskState.UNINTERRUPTIBLE);
          n.step = UNLOCK_AND_SLEEP;
        }
        case UNLOCK_AND_SLEEP -> {
          return sem.unlockAndSleep(t, n, sem.waitUnlockIrq, WOKEN);
        }
        case WOKEN -> {
          // do { schedule(); set_current_state(); } while (count & RWSEM_ACTIVE_MASK)
          if (!sem.noActiveHolder()) {
            t.setState(TaskState.UNINTERRUPTIBLE);
            sem.stats.slept();
            t.scheduleNow();
            return AGAIN;
          }
          t.setState(TaskState.RUNNING);
          n.step = RELOCK;
        }
        case RELOCK -> {
          if (n.inline.run(sem.waitLockIrq, t) == AGAIN) {
            return AGAIN;
          }
          n.step = WAIT_LOOP;
        }
        case UNLOCK_GOT -> {
          if (n.inline.run(sem.waitUnlockIrq, t) == AGAIN) {
            return AGAIN;
          }
          n.step = DONE;
          return NEXT;
        }
        case DONE -> {
          return NEXT;
        }
        default -> throw new IllegalStateException("bad step " + n.step);
      }
    }
  }
}

package org.lockvisor.locking.builtin;

import java.util.ArrayDeque;
import java.util.Set;
import java.util.function.Function;
import org.lockvisor.locking.spi.LockContext;
import org.lockvisor.locking.spi.LockStats;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.machine.Op;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.SpinCondition;
import org.lockvisor.machine.Task;
import org.lockvisor.machine.TaskState;

/**
 * What the sleeping locks with optimistic spinning share (the mutexes of {@link SleepingMutex}
 * and {@link XaddRwsem}): a wait_lock guarding a FIFO wait list, the OSQ, the per-task node, and
 * the spin-on-owner mechanics ({@code mutex_spin_on_owner}, {@code rwsem_spin_on_owner}): spin
 * while the owner stays the same, on CPU and (with the vcpu_is_preempted check) not preempted,
 * and need_resched is clear. Step numbers belong to the subclasses; the helpers take the steps
 * they move to.
 *
 * <p>With the check on, each {@code vcpu_is_preempted} read costs the arch's {@code
 * VCPU_PREEMPTED_CHECK} where kernel/locking/mutex.c and rwsem-xadd.c (4.10) make it: once per
 * iteration of the spin-on-owner loop ({@link LockContext#spinCheckPeriodNs}), once in {@code
 * mutex_can_spin_on_owner} / {@code rwsem_can_spin_on_owner} when the owner is on its CPU, and
 * once when the loop's first test finds the owner's vCPU preempted ({@link
 * LockContext#startVcpuPreemptedCheck}). Without the check nothing is charged.
 */
abstract class OwnerSpinningLock<N extends OwnerSpinningLock.Node> extends BaseLock {
  /** The step that ends a slow path (and that a fast-path acquisition leaves behind). */
  static final int DONE = 0;

  final boolean optimisticSpin;
  final BaseLock waitLock;
  final OptimisticSpinQueue osq;
  final ArrayDeque<Task> waitList = new ArrayDeque<>();
  final NodeTable<N> nodes;
  final SpinCondition ownerChanged = this::ownerCondition;
  /** The OSQ head spinning on the owner, poked when the lock word changes. */
  Task ownerSpinner;

  /** Per-task state of the slow paths. */
  static class Node {
    int step;
    final Inline inline = new Inline();
    long waitStart;
    Task spinOwner;
    long ownerSpinStart;
  }

  OwnerSpinningLock(LockContext context, String algorithm, Set<LockMode> modes, boolean optimisticSpin,
      String waitLockAlgorithm, Function<Task, N> newNode) {
    super(context, algorithm, modes);
    this.nodes = new NodeTable<>(newNode);
    this.optimisticSpin = optimisticSpin;
    this.waitLock = SpinLocks.create(waitLockAlgorithm, context.embedded(name + ".wait_lock"));
    this.osq = new OptimisticSpinQueue(kernel, costs, vcpuCheck, stats);
  }

  /** The lock's OSQ (for statistics). */
  OptimisticSpinQueue osq() {
    return osq;
  }

  /** The lock's wait_lock (for statistics). */
  BaseLock waitLock() {
    return waitLock;
  }

  private boolean ownerCondition(Task s) {
    accountHolder();
    Task o = nodes.get(s).spinOwner;
    return owner != o || !o.onCpu() || needResched(s) || vcpuIsPreempted(o);
  }

  final void pokeSpinner() {
    if (ownerSpinner != null) {
      ownerSpinner.poke(costs.lineTransferNs());
    }
  }

  /** The lock API's second phase: done on the fast path, else call the slow path. */
  static int callSlowPath(Task t, Node n, Program slowPath) {
    if (n.step == DONE) {
      return Op.NEXT;
    }
    n.inline.reset();
    t.call(slowPath);
    return Op.AGAIN;
  }

  /** The spin on owner {@code o} cannot go on: it is off CPU, preempted, or we must resched. */
  final boolean cannotSpinOn(Task t, Task o) {
    return !o.onCpu() || needResched(t) || vcpuIsPreempted(o);
  }

  /**
   * Starts spinning on owner {@code o} (charged to {@code sym}); the spin ends when {@link
   * #ownerCondition} holds, and the slow path resumes at {@code spunStep}.
   */
  final int spinOnOwner(Task t, N n, Task o, int spunStep, int sym) {
    n.spinOwner = o;
    n.ownerSpinStart = now();
    ownerSpinner = t;
    n.step = spunStep;
    // mutex_spin_on_owner / rwsem_spin_on_owner: one vcpu_is_preempted read per iteration
    t.startSpin(sym, ownerChanged, 0, o.cpu(), context.spinCheckPeriodNs(1));
    return Op.AGAIN;
  }

  /**
   * Spins on owner {@code o} as {@link #spinOnOwner} does unless {@link #cannotSpinOn} (a
   * bail-out, counted; the slow path moves to {@code bailStep}). True if the op must return
   * {@link Op#AGAIN}: the spin started, or the loop's first test read vcpu_is_preempted (owner on
   * CPU, no need_resched) and that read's work started.
   */
  final boolean spinOnOwnerOrBail(Task t, N n, Task o, int spunStep, int bailStep, int sym) {
    if (cannotSpinOn(t, o)) {
      stats.spinBailout();
      n.step = bailStep;
      return o.onCpu() && !needResched(t) && context.startVcpuPreemptedCheck(t, sym);
    }
    spinOnOwner(t, n, o, spunStep, sym);
    return true;
  }

  /**
   * After a spin on the owner (counted with its duration, the OSQ head's share of the spin): true
   * (a bail-out, counted) if the owner is still the same, so the spin gave up (owner off CPU,
   * preempted, or need_resched).
   */
  final boolean ownerSpinGaveUp(Task t, N n) {
    long spun = now() - n.ownerSpinStart;
    stats.ownerSpun(spun);
    if (owner == n.spinOwner) {
      stats.spinBailout();
      stats.spinEpisode(needResched(t) ? LockStats.SpinEnd.NEED_RESCHED : LockStats.SpinEnd.OTHER, spun);
      return true;
    }
    stats.spinEpisode(LockStats.SpinEnd.OWNER_CHANGE, spun);
    return false;
  }

  /** osq_unlock after the spinner took the lock, then preempt_enable: the slow path is done. */
  final int osqUnlockAcquired(Task t, N n) {
    if (n.inline.run(osq.unlockOp(), t) == Op.AGAIN) {
      return Op.AGAIN;
    }
    n.step = DONE;
    t.preemptEnable();
    return Op.NEXT;
  }

  /** Drop wait_lock (with {@code unlock}) and sleep; the slow path resumes at {@code wokenStep}. */
  final int unlockAndSleep(Task t, N n, Op unlock, int wokenStep) {
    if (n.inline.run(unlock, t) == Op.AGAIN) {
      return Op.AGAIN;
    }
    n.step = wokenStep;
    if (t.state() != TaskState.RUNNING) {
      stats.slept();
    }
    t.scheduleNow(); // schedule_preempt_disabled() (mutex), schedule() (rwsem)
    return Op.AGAIN;
  }
}

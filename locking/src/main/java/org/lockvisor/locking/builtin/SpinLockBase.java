package org.lockvisor.locking.builtin;

import org.lockvisor.locking.spi.LockContext;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.machine.Op;
import org.lockvisor.machine.Task;

/**
 * What the spinlocks ({@link TicketSpinLock}, {@link QueuedSpinLock}, {@link TasSpinLock}, {@link
 * SplparSpinLock}) share: one lock and one unlock op per {@code spin_lock*} flavour
 * ({@link BaseLock#SPIN_MODES}), the per-mode op skeletons and the unlocker's hand-off to the next
 * waiter. Each subclass fills {@link #lockOps} and {@link #unlockOps} in its constructor.
 */
abstract class SpinLockBase extends BaseLock {
  final Op[] lockOps = new Op[LockMode.values().length];
  final Op[] unlockOps = new Op[LockMode.values().length];

  SpinLockBase(LockContext context, String algorithm) {
    super(context, algorithm, SPIN_MODES);
  }

  @Override
  public final Op lock(LockMode mode) {
    checkMode(mode);
    return lockOps[mode.ordinal()];
  }

  @Override
  public final Op unlock(LockMode mode) {
    checkMode(mode);
    return unlockOps[mode.ordinal()];
  }

  /**
   * The unlock's store reaches the next waiter one cache-line transfer later; a waiter whose vCPU
   * is preempted cannot take the free lock (lock-waiter preemption, counted).
   */
  final void pokeNextWaiter(Task next) {
    if (vcpuPreempted(next)) {
      stats.handoffToPreemptedWaiter();
    }
    next.poke(costs.lineTransferNs());
  }

  /** spin_lock* of one mode; its symbol is registered when the op is made. */
  abstract class ModeLockOp extends Op {
    final LockMode mode;
    final int symLock;

    ModeLockOp(LockMode mode) {
      this.mode = mode;
      this.symLock = sym(mode.lockSymbol());
    }
  }

  /** spin_unlock* of one mode. */
  abstract class ModeUnlockOp extends Op {
    final LockMode mode;

    ModeUnlockOp(LockMode mode) {
      this.mode = mode;
    }
  }
}

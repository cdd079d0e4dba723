package org.lockvisor.locking.builtin;

import org.lockvisor.locking.spi.LockContext;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.machine.Op;

/**
 * What the rwlock_t algorithms ({@link QueuedRwlock}, {@link SplparRwlock}) share: one lock and
 * one unlock op per {@code read_lock*}/{@code write_lock*} flavour ({@link LockMode#RWLOCK}), each
 * disabling what the matching {@code spin_lock*} flavour disables (include/linux/rwlock_api_smp.h,
 * 4.8), and the reader count of the lock word.
 */
abstract class RwlockBase extends BaseLock {
  final Op[] lockOps = new Op[LockMode.values().length];
  final Op[] unlockOps = new Op[LockMode.values().length];
  /** Readers counted in the lock word (holders, and readers whose bias is in it while they wait). */
  int readers;

  RwlockBase(LockContext context, String algorithm) {
    super(context, algorithm, LockMode.RWLOCK);
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

  @Override
  public final int readers() {
    return readers;
  }
}

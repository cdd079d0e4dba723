package org.lockvisor.locking.spi;

import static com.google.common.base.Preconditions.checkArgument;

import org.lockvisor.machine.Op;
import org.lockvisor.machine.Task;

/**
 * The framework's always-on instrumentation of a lock that does not report its own accounting:
 * its lock and unlock ops are wrapped (one wrapper per mode, made once) so that {@link
 * LockAccounting} sees every arrival, acquisition and release. Everything else is the plugin's.
 */
final class InstrumentedLock implements KernelLock {
  private final KernelLock lock;
  private final LockAccounting accounting;
  private final Op[] lockOps = new Op[LockMode.values().length];
  private final Op[] unlockOps = new Op[LockMode.values().length];

  InstrumentedLock(KernelLock lock, LockAccounting accounting) {
    this.lock = lock;
    this.accounting = accounting;
    for (LockMode m : LockMode.values()) {
      if (lock.supports(m)) {
        lockOps[m.ordinal()] = new LockOp(lock.lock(m), m.isShared());
        unlockOps[m.ordinal()] = new UnlockOp(lock.unlock(m), m.isShared());
      }
    }
  }

  /** The plugin's own lock object. */
  KernelLock delegate() {
    return lock;
  }

  @Override
  public String name() {
    return lock.name();
  }

  @Override
  public String lockClass() {
    return lock.lockClass();
  }

  @Override
  public String algorithm() {
    return lock.algorithm();
  }

  @Override
  public Op lock(LockMode mode) {
    Op op = lockOps[mode.ordinal()];
    checkArgument(op != null, "lock [%s] (%s) does not support mode [%s]", name(), algorithm(), mode);
    return op;
  }

  @Override
  public Op unlock(LockMode mode) {
    Op op = unlockOps[mode.ordinal()];
    checkArgument(op != null, "lock [%s] (%s) does not support mode [%s]", name(), algorithm(), mode);
    return op;
  }

  @Override
  public boolean supports(LockMode mode) {
    return lock.supports(mode);
  }

  @Override
  public Task owner() {
    return lock.owner();
  }

  @Override
  public int readers() {
    return lock.readers();
  }

  @Override
  public LockStats stats() {
    return accounting.stats();
  }

  @Override
  public String toString() {
    return lock.toString();
  }

  private final class LockOp extends Op {
    private final Op inner;
    private final boolean shared;

    LockOp(Op inner, boolean shared) {
      this.inner = inner;
      this.shared = shared;
    }

    @Override
    public int execute(Task t, int phase) {
      if (phase == 0) {
        accounting.opArrived(t, shared, lock.owner() != null || (!shared && lock.readers() > 0));
      }
      int r = inner.execute(t, phase);
      if (r == NEXT) {
        accounting.opAcquired(t, shared);
      }
      return r;
    }

    @Override
    public String toString() {
      return inner.toString();
    }
  }

  private final class UnlockOp extends Op {
    private final Op inner;
    private final boolean shared;

    UnlockOp(Op inner, boolean shared) {
      this.inner = inner;
      this.shared = shared;
    }

    @Override
    public int execute(Task t, int phase) {
      if (phase == 0) {
        accounting.opReleasing(t, shared);
      }
      return inner.execute(t, phase);
    }

    @Override
    public String toString() {
      return inner.toString();
    }
  }
}

package org.lockvisor.locking.spi;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.Arrays;
import org.lockvisor.machine.Op;
import org.lockvisor.machine.Task;

/**
 * The one wrapper of a lock's op boundaries. Its lock and unlock ops (one per mode, made once)
 * tell the framework's {@link LockAccounting} of every arrival, acquisition and release, unless
 * the lock reports its own accounting, and every added {@link LockBoundaries} (the run's checks in
 * invariant mode) likewise, as if each were a wrapper around the previous one: the last added sees
 * an arrival first and an acquisition last. Everything else is the plugin's.
 */
public final class InstrumentedLock implements KernelLock {
  private final KernelLock lock;
  /** The framework's accounting, or null when the lock reports its own. */
  private final LockAccounting accounting;
  /** Added boundaries, innermost first. */
  private LockBoundaries[] boundaries = new LockBoundaries[0];
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

  /**
   * {@code lock} with {@code b} at its op boundaries, outside what is there already: the same
   * wrapper when {@code lock} is one (the framework's, made by {@link LockContext.Builder}), else a
   * wrapper without accounting around it (a lock that reports its own). Call it before the lock's
   * ops are handed out: ops obtained earlier from an unwrapped lock do not see {@code b}.
   */
  public static InstrumentedLock observe(KernelLock lock, LockBoundaries b) {
    InstrumentedLock w = lock instanceof InstrumentedLock i ? i : new InstrumentedLock(lock, null);
    w.boundaries = Arrays.copyOf(w.boundaries, w.boundaries.length + 1);
    w.boundaries[w.boundaries.length - 1] = b;
    return w;
  }

  /** The plugin's own lock object. */
  public KernelLock delegate() {
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
    return accounting != null ? accounting.stats() : lock.stats();
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
      LockBoundaries[] bs = boundaries;
      for (int i = bs.length - 1; i >= 0; i--) {
        bs[i].acquiring(t, shared, phase);
      }
      if (phase == 0 && accounting != null) {
        accounting.opArrived(t, shared, lock.owner() != null || (!shared && lock.readers() > 0));
      }
      int r = inner.execute(t, phase);
      if (r == NEXT) {
        if (accounting != null) {
          accounting.opAcquired(t, shared);
        }
        for (LockBoundaries b : bs) {
          b.acquired(t, shared);
        }
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
        LockBoundaries[] bs = boundaries;
        for (int i = bs.length - 1; i >= 0; i--) {
          bs[i].releasing(t, shared);
        }
        if (accounting != null) {
          accounting.opReleasing(t, shared);
        }
      }
      return inner.execute(t, phase);
    }

    @Override
    public String toString() {
      return inner.toString();
    }
  }
}

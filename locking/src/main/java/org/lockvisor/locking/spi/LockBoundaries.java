package org.lockvisor.locking.spi;

import org.lockvisor.machine.Task;

/**
 * What runs at a lock's op boundaries, whatever the algorithm: the framework's accounting
 * ({@link LockAccounting}) and, in invariant mode, the run's checks of mutual exclusion and its
 * waits-for graph. Added to the one wrapper, {@link InstrumentedLock#observe}; called on the hot
 * path, so an implementation allocates nothing.
 */
public interface LockBoundaries {
  /** {@code t}'s acquire op is about to run {@code phase} (0 on arrival). */
  void acquiring(Task t, boolean shared, int phase);

  /** {@code t}'s acquire op finished: it holds the lock. */
  void acquired(Task t, boolean shared);

  /** {@code t}'s release op is about to run its first phase. */
  void releasing(Task t, boolean shared);
}

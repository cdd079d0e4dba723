package org.lockvisor.locking.testkit.builtin;

import org.lockvisor.locking.builtin.PvQueuedSpinLockFactory;
import org.lockvisor.locking.spi.LockFactory;
import org.lockvisor.locking.testkit.LockContractTest;

/** The lock contract for the built-in {@code PvQueuedSpinLockFactory} plugin. */
class PvQspinlockContractTest extends LockContractTest {
  @Override
  protected LockFactory factory() {
    return new PvQueuedSpinLockFactory();
  }
}

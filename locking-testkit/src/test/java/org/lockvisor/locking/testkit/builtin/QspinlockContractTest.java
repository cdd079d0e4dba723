package org.lockvisor.locking.testkit.builtin;

import org.lockvisor.locking.builtin.QueuedSpinLockFactory;
import org.lockvisor.locking.spi.LockFactory;
import org.lockvisor.locking.testkit.LockContractTest;

/** The lock contract for the built-in {@code QueuedSpinLockFactory} plugin. */
class QspinlockContractTest extends LockContractTest {
  @Override
  protected LockFactory factory() {
    return new QueuedSpinLockFactory();
  }
}

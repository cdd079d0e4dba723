package org.lockvisor.locking.testkit.builtin;

import org.lockvisor.locking.builtin.QueuedRwlockFactory;
import org.lockvisor.locking.spi.LockFactory;
import org.lockvisor.locking.testkit.LockContractTest;

/** The lock contract for the built-in {@code QueuedRwlockFactory} plugin (readers share, writers exclude). */
class QrwlockContractTest extends LockContractTest {
  @Override
  protected LockFactory factory() {
    return new QueuedRwlockFactory();
  }
}

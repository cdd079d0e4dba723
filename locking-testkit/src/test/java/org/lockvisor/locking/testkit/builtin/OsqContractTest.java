package org.lockvisor.locking.testkit.builtin;

import org.lockvisor.locking.builtin.OsqLockFactory;
import org.lockvisor.locking.spi.LockFactory;
import org.lockvisor.locking.testkit.LockContractTest;

/** The lock contract for the built-in {@code OsqLockFactory} plugin. */
class OsqContractTest extends LockContractTest {
  @Override
  protected LockFactory factory() {
    return new OsqLockFactory();
  }
}

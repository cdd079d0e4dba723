package org.lockvisor.locking.testkit.builtin;

import org.lockvisor.locking.builtin.CountMutexFactory;
import org.lockvisor.locking.spi.LockFactory;
import org.lockvisor.locking.testkit.LockContractTest;

/** The lock contract for the built-in {@code CountMutexFactory} plugin. */
class MutexCountContractTest extends LockContractTest {
  @Override
  protected LockFactory factory() {
    return new CountMutexFactory();
  }
}

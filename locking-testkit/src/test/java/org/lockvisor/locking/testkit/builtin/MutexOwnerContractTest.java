package org.lockvisor.locking.testkit.builtin;

import org.lockvisor.locking.builtin.OwnerMutexFactory;
import org.lockvisor.locking.spi.LockFactory;
import org.lockvisor.locking.testkit.LockContractTest;

/** The lock contract for the built-in {@code mutex-owner} plugin. */
class MutexOwnerContractTest extends LockContractTest {
  @Override
  protected LockFactory factory() {
    return new OwnerMutexFactory();
  }
}

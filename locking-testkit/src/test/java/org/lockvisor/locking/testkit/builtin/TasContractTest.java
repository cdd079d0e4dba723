package org.lockvisor.locking.testkit.builtin;

import org.lockvisor.locking.builtin.TasSpinLockFactory;
import org.lockvisor.locking.spi.LockFactory;
import org.lockvisor.locking.testkit.LockContractTest;

/** The lock contract for the built-in {@code TasSpinLockFactory} plugin. */
class TasContractTest extends LockContractTest {
  @Override
  protected LockFactory factory() {
    return new TasSpinLockFactory();
  }
}

package org.lockvisor.locking.testkit.builtin;

import org.lockvisor.locking.builtin.SplparSpinLockFactory;
import org.lockvisor.locking.spi.LockFactory;
import org.lockvisor.locking.testkit.LockContractTest;

/** The lock contract for the built-in {@code SplparSpinLockFactory} plugin. */
class PpcSplparContractTest extends LockContractTest {
  @Override
  protected LockFactory factory() {
    return new SplparSpinLockFactory();
  }
}

package org.lockvisor.locking.testkit.builtin;

import org.lockvisor.locking.builtin.SplparRwlockFactory;
import org.lockvisor.locking.spi.LockFactory;
import org.lockvisor.locking.testkit.LockContractTest;

/** The lock contract for the built-in {@code SplparRwlockFactory} plugin (readers share, writers exclude). */
class PpcSplparRwlockContractTest extends LockContractTest {
  @Override
  protected LockFactory factory() {
    return new SplparRwlockFactory();
  }
}

package org.lockvisor.locking.testkit.builtin;

import org.lockvisor.locking.builtin.XaddRwsemFactory;
import org.lockvisor.locking.spi.LockFactory;
import org.lockvisor.locking.testkit.LockContractTest;

/** The lock contract for the built-in {@code XaddRwsemFactory} plugin. */
class RwsemXaddContractTest extends LockContractTest {
  @Override
  protected LockFactory factory() {
    return new XaddRwsemFactory();
  }
}

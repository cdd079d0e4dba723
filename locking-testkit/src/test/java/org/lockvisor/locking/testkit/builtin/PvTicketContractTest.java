package org.lockvisor.locking.testkit.builtin;

import org.lockvisor.locking.builtin.PvTicketSpinLockFactory;
import org.lockvisor.locking.spi.LockFactory;
import org.lockvisor.locking.testkit.LockContractTest;

/** The lock contract for the built-in {@code PvTicketSpinLockFactory} plugin. */
class PvTicketContractTest extends LockContractTest {
  @Override
  protected LockFactory factory() {
    return new PvTicketSpinLockFactory();
  }
}

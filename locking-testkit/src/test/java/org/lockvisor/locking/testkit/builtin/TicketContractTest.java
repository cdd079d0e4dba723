package org.lockvisor.locking.testkit.builtin;

import org.lockvisor.locking.builtin.TicketSpinLockFactory;
import org.lockvisor.locking.spi.LockFactory;
import org.lockvisor.locking.testkit.LockContractTest;

/** The lock contract for the built-in {@code TicketSpinLockFactory} plugin. */
class TicketContractTest extends LockContractTest {
  @Override
  protected LockFactory factory() {
    return new TicketSpinLockFactory();
  }
}

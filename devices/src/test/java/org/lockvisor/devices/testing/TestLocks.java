package org.lockvisor.devices.testing;

import org.lockvisor.devices.spi.LockProvider;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockFactory.LockKind;
import org.lockvisor.machine.Kernel;

/** A {@link LockProvider} of the test-only locks: ticket spinlocks and FIFO mutexes. */
public final class TestLocks implements LockProvider {
  private final long handoffNs;

  public TestLocks(long handoffNs) {
    this.handoffNs = handoffNs;
  }

  @Override
  public KernelLock create(Kernel kernel, String name, LockKind kind) {
    return switch (kind) {
      case SPINLOCK -> new TestTicketLock(name, handoffNs);
      case MUTEX -> new TestMutex(name);
      default -> throw new IllegalArgumentException("test locks have no " + kind);
    };
  }
}

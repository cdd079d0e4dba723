package org.lockvisor.devices.testing;

import java.util.Map;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.KernelLocks;
import org.lockvisor.locking.spi.LockFactory.LockKind;
import org.lockvisor.machine.Kernel;

/** {@link KernelLocks} of the test-only locks: ticket spinlocks ({@code test-ticket}) and FIFO mutexes ({@code test-mutex}). */
public final class TestLocks implements KernelLocks {
  private final long handoffNs;

  public TestLocks(long handoffNs) {
    this.handoffNs = handoffNs;
  }

  @Override
  public String algorithm(Kernel kernel, LockKind kind) {
    return switch (kind) {
      case SPINLOCK -> "test-ticket";
      case MUTEX -> "test-mutex";
      default -> throw new IllegalArgumentException("test locks have no " + kind);
    };
  }

  @Override
  public KernelLock create(Kernel kernel, String name, String algorithm, LockKind kind, Map<String, String> options,
      String... callSites) {
    if (!algorithm.equals(algorithm(kernel, kind)) || !options.isEmpty()) {
      throw new IllegalArgumentException("test locks are [" + algorithm(kernel, kind) + "] without options; cannot create ["
          + name + "] as [" + algorithm + "] with " + options);
    }
    return switch (kind) {
      case SPINLOCK -> new TestTicketLock(name, handoffNs);
      case MUTEX -> new TestMutex(name);
      default -> throw new IllegalArgumentException("test locks have no " + kind);
    };
  }
}

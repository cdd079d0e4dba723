package org.lockvisor.devices.spi;

import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockFactory.LockKind;
import org.lockvisor.machine.Kernel;

/**
 * Creates lock instances for device code paths. The composition root answers with the algorithm
 * the experiment chose for that kernel and kind (e.g. guest spinlocks: {@code ticket}; host
 * mutexes: {@code mutex-owner}), so a device never names an algorithm itself.
 */
@FunctionalInterface
public interface LockProvider {

  /** A new lock called {@code name} of the given kind in {@code kernel}. */
  KernelLock create(Kernel kernel, String name, LockKind kind);
}

package org.lockvisor.examples.mcs;

import com.google.auto.service.AutoService;
import java.util.Map;
import java.util.Set;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockCosts;
import org.lockvisor.locking.spi.LockFactory;
import org.lockvisor.machine.Kernel;

/** A third-party plugin: the plain MCS spinlock, registered like any built-in. */
@AutoService(LockFactory.class)
public final class McsSpinLockFactory implements LockFactory {
  @Override
  public String name() {
    return "mcs";
  }

  @Override
  public String summary() {
    return "example third-party plugin: plain MCS queue spinlock (mcs_spinlock.h), FIFO, spins on its own node";
  }

  @Override
  public LockKind lockKind() {
    return LockKind.SPINLOCK;
  }

  @Override
  public Set<String> capabilities() {
    return Set.of("fifo");
  }

  @Override
  public KernelLock create(String name, Kernel kernel, LockCosts costs, boolean vcpuIsPreemptedCheck,
      Map<String, String> options) {
    if (options != null && !options.isEmpty()) {
      throw new IllegalArgumentException("mcs: unknown option(s) " + options.keySet() + "; known: []");
    }
    return new McsSpinLock(name, kernel, costs);
  }
}

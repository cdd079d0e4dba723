package org.lockvisor.examples.mcs;

import com.google.auto.service.AutoService;
import java.util.Set;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockCapability;
import org.lockvisor.locking.spi.LockContext;
import org.lockvisor.locking.spi.LockFactory;

/**
 * A third-party plugin: the plain MCS spinlock, registered like any built-in. It declares no
 * options (the framework refuses any given), one capability, and creates the lock from its {@link
 * LockContext}; statistics and lock-holder preemption are the framework's.
 */
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
  public Set<LockCapability> lockCapabilities() {
    return Set.of(LockCapability.FIFO);
  }

  @Override
  public KernelLock create(LockContext context) {
    return new McsSpinLock(context);
  }
}

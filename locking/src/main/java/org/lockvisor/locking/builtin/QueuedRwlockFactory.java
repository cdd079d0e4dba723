package org.lockvisor.locking.builtin;

import com.google.auto.service.AutoService;
import java.util.Set;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockCapability;
import org.lockvisor.locking.spi.LockContext;
import org.lockvisor.locking.spi.LockFactory;

/** Plugin entry for {@code qrwlock}; see docs/plugins/qrwlock.md. */
@AutoService(LockFactory.class)
public final class QueuedRwlockFactory implements LockFactory {
  @Override
  public String name() {
    return "qrwlock";
  }

  @Override
  public String summary() {
    return "queued rwlock (4.x x86/arm64): readers share, waiters queue on wait_lock, a waiting writer stops new readers outside interrupt context";
  }

  @Override
  public LockKind lockKind() {
    return LockKind.RWLOCK;
  }

  @Override
  public Set<LockCapability> lockCapabilities() {
    return Set.of(LockCapability.SHARED);
  }

  @Override
  public KernelLock create(LockContext context) {
    return new QueuedRwlock(context);
  }
}

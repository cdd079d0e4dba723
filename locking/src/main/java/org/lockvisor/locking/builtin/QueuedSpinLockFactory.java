package org.lockvisor.locking.builtin;

import com.google.auto.service.AutoService;
import java.util.List;
import java.util.Set;
import org.lockvisor.core.plugin.BoundOptions;
import org.lockvisor.core.plugin.PluginOption;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockCapability;
import org.lockvisor.locking.spi.LockContext;
import org.lockvisor.locking.spi.LockFactory;

/** Plugin entry for {@code qspinlock}; see docs/plugins/qspinlock.md. */
@AutoService(LockFactory.class)
public final class QueuedSpinLockFactory implements LockFactory {
  private static final List<PluginOption> OPTIONS = List.of();

  @Override
  public String name() {
    return "qspinlock";
  }

  @Override
  public String summary() {
    return "queued spinlock (x86 4.2+, arm64 4.19+): pending bit + MCS queue, FIFO, O(1) line transfers per hand-off";
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
  public List<PluginOption> options() {
    return OPTIONS;
  }

  @Override
  public KernelLock create(LockContext context) {
    BoundOptions o = context.options();
    return new QueuedSpinLock(context, false);
  }
}

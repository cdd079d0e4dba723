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

/** Plugin entry for {@code pv-qspinlock}; see docs/plugins/pv-qspinlock.md. */
@AutoService(LockFactory.class)
public final class PvQueuedSpinLockFactory implements LockFactory {
  private static final List<PluginOption> OPTIONS = List.of();

  @Override
  public String name() {
    return "pv-qspinlock";
  }

  @Override
  public String summary() {
    return "paravirt qspinlock: MCS waiters halt after SPIN_THRESHOLD or early when the predecessor is not running; lazy kick at unlock via the pv hash";
  }

  @Override
  public LockKind lockKind() {
    return LockKind.SPINLOCK;
  }

  @Override
  public Set<LockCapability> lockCapabilities() {
    return Set.of(LockCapability.PV, LockCapability.VCPU_PREEMPTED_CHECK);
  }

  @Override
  public List<PluginOption> options() {
    return OPTIONS;
  }

  @Override
  public KernelLock create(LockContext context) {
    BoundOptions o = context.options();
    return new QueuedSpinLock(context, true);
  }
}

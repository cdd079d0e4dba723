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

/** Plugin entry for {@code mutex-owner}; see docs/plugins/mutex-owner.md. */
@AutoService(LockFactory.class)
public final class OwnerMutexFactory implements LockFactory {
  private static final List<PluginOption> OPTIONS = List.of(
      PluginOption.ofBoolean("optimistic-spin", true,
          "CONFIG_MUTEX_SPIN_ON_OWNER: spin on the OSQ and the owner before sleeping"),
      PluginOption.ofEnum("wait-lock", "qspinlock", "the spinlock algorithm of wait_lock (the kernel's spinlock choice)",
          "qspinlock", "pv-qspinlock", "ticket", "pv-ticket", "tas", "ppc-splpar"));

  @Override
  public String name() {
    return "mutex-owner";
  }

  @Override
  public String summary() {
    return "owner-based mutex (4.10+): owner word with WAITERS/HANDOFF/PICKUP flags, wake_q outside wait_lock, hand-off to a starving first waiter";
  }

  @Override
  public LockKind lockKind() {
    return LockKind.MUTEX;
  }

  @Override
  public Set<LockCapability> lockCapabilities() {
    return Set.of(LockCapability.SLEEPING, LockCapability.VCPU_PREEMPTED_CHECK, LockCapability.OPTIMISTIC_SPIN, LockCapability.HANDOFF);
  }

  @Override
  public List<PluginOption> options() {
    return OPTIONS;
  }

  @Override
  public KernelLock create(LockContext context) {
    BoundOptions o = context.options();
    return new OwnerMutex(context, o.bool("optimistic-spin"), o.choice("wait-lock"));
  }
}

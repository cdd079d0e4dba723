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

/** Plugin entry for {@code osq}; see docs/plugins/osq.md. */
@AutoService(LockFactory.class)
public final class OsqLockFactory implements LockFactory {
  private static final List<PluginOption> OPTIONS = List.of();

  @Override
  public String name() {
    return "osq";
  }

  @Override
  public String summary() {
    return "optimistic spin queue (osq_lock.c): MCS queue of optimistic spinners with need_resched / vcpu_is_preempted bail-out and three-step unqueue";
  }

  @Override
  public LockKind lockKind() {
    return LockKind.OSQ;
  }

  @Override
  public Set<LockCapability> lockCapabilities() {
    return Set.of(LockCapability.VCPU_PREEMPTED_CHECK);
  }

  @Override
  public List<PluginOption> options() {
    return OPTIONS;
  }

  @Override
  public KernelLock create(LockContext context) {
    BoundOptions o = context.options();
    return new OsqLock(context);
  }
}

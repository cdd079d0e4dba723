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

/** Plugin entry for {@code tas}; see docs/plugins/tas.md. */
@AutoService(LockFactory.class)
public final class TasSpinLockFactory implements LockFactory {
  private static final List<PluginOption> OPTIONS = List.of();

  @Override
  public String name() {
    return "tas";
  }

  @Override
  public String summary() {
    return "virt_spin_lock test-and-set fallback (x86 guests without PV spinlocks): unfair, any spinner may win after release";
  }

  @Override
  public LockKind lockKind() {
    return LockKind.SPINLOCK;
  }

  @Override
  public Set<LockCapability> lockCapabilities() {
    return Set.of(LockCapability.UNFAIR);
  }

  @Override
  public List<PluginOption> options() {
    return OPTIONS;
  }

  @Override
  public KernelLock create(LockContext context) {
    BoundOptions o = context.options();
    return new TasSpinLock(context);
  }
}

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

/** Plugin entry for {@code ppc-splpar}; see docs/plugins/ppc-splpar.md. */
@AutoService(LockFactory.class)
public final class SplparSpinLockFactory implements LockFactory {
  private static final List<PluginOption> OPTIONS = List.of(
      PluginOption.ofBoolean("shared-processor", true,
          "SHARED_PROCESSOR: waiters read the holder lppaca yield_count and H_CONFER to it (dedicated LPARs never do)"));

  @Override
  public String name() {
    return "ppc-splpar";
  }

  @Override
  public String summary() {
    return "powerpc shared-processor LPAR spinlock: spin, and confer to an undispatched holder with H_CONFER";
  }

  @Override
  public LockKind lockKind() {
    return LockKind.SPINLOCK;
  }

  @Override
  public Set<LockCapability> lockCapabilities() {
    return Set.of(LockCapability.UNFAIR, LockCapability.CONFER);
  }

  @Override
  public List<PluginOption> options() {
    return OPTIONS;
  }

  @Override
  public KernelLock create(LockContext context) {
    BoundOptions o = context.options();
    return new SplparSpinLock(context, o.bool("shared-processor"));
  }
}

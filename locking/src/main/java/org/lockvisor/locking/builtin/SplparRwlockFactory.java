package org.lockvisor.locking.builtin;

import com.google.auto.service.AutoService;
import java.util.List;
import java.util.Set;
import org.lockvisor.core.plugin.PluginOption;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockCapability;
import org.lockvisor.locking.spi.LockContext;
import org.lockvisor.locking.spi.LockFactory;

/** Plugin entry for {@code ppc-splpar-rwlock}; see docs/plugins/ppc-splpar-rwlock.md. */
@AutoService(LockFactory.class)
public final class SplparRwlockFactory implements LockFactory {
  private static final List<PluginOption> OPTIONS = List.of(
      PluginOption.ofBoolean("shared-processor", true,
          "SHARED_PROCESSOR: waiters on a write-held lock read the writer's lppaca yield_count and H_CONFER to it"
              + " (__rw_yield; dedicated LPARs never do)"));

  @Override
  public String name() {
    return "ppc-splpar-rwlock";
  }

  @Override
  public String summary() {
    return "powerpc rwlock (4.x): unfair reader count or writer token, waiters confer to an undispatched writer with H_CONFER";
  }

  @Override
  public LockKind lockKind() {
    return LockKind.RWLOCK;
  }

  @Override
  public Set<LockCapability> lockCapabilities() {
    return Set.of(LockCapability.SHARED, LockCapability.UNFAIR, LockCapability.CONFER);
  }

  @Override
  public List<PluginOption> options() {
    return OPTIONS;
  }

  @Override
  public KernelLock create(LockContext context) {
    return new SplparRwlock(context, context.options().bool("shared-processor"));
  }
}

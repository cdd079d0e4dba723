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

/** Plugin entry for {@code rwsem-xadd}; see docs/plugins/rwsem-xadd.md. */
@AutoService(LockFactory.class)
public final class XaddRwsemFactory implements LockFactory {
  private static final List<PluginOption> OPTIONS = List.of(
      PluginOption.ofBoolean("optimistic-spin", true, "CONFIG_RWSEM_SPIN_ON_OWNER: writers spin on the OSQ and the owner before sleeping"),
      PluginOption.ofEnum("wait-lock", "qspinlock", "the spinlock algorithm of wait_lock (the kernel's spinlock choice)",
          "qspinlock", "pv-qspinlock", "ticket", "pv-ticket", "tas", "ppc-splpar"),
      PluginOption.ofEnum("kernel-version", "4.8", "rwsem-xadd.c of 4.7 (rwsem_spin_on_owner(sem, owner), count-based reader check) "
          + "or 4.8 (RWSEM_READER_OWNED owner mark)", "4.7", "4.8"));

  @Override
  public String name() {
    return "rwsem-xadd";
  }

  @Override
  public String summary() {
    return "xadd rwsem (3.16-5.2): readers and writers, writer optimistic spinning on the OSQ and rwsem_spin_on_owner, FIFO wait list with reader batching";
  }

  @Override
  public LockKind lockKind() {
    return LockKind.RWSEM;
  }

  @Override
  public Set<LockCapability> lockCapabilities() {
    return Set.of(LockCapability.SLEEPING, LockCapability.VCPU_PREEMPTED_CHECK, LockCapability.OPTIMISTIC_SPIN, LockCapability.SHARED);
  }

  @Override
  public List<PluginOption> options() {
    return OPTIONS;
  }

  @Override
  public KernelLock create(LockContext context) {
    BoundOptions o = context.options();
    return new XaddRwsem(context, o.bool("optimistic-spin"), o.choice("wait-lock"),
        XaddRwsem.KernelVersion.of(o.choice("kernel-version")));
  }
}

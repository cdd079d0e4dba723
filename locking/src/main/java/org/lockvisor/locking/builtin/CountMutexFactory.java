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

/** Plugin entry for {@code mutex-count}; see docs/plugins/mutex-count.md. */
@AutoService(LockFactory.class)
public final class CountMutexFactory implements LockFactory {
  private static final List<PluginOption> OPTIONS = List.of(
      PluginOption.ofBoolean("optimistic-spin", true, "CONFIG_MUTEX_SPIN_ON_OWNER: spin on the OSQ and the owner before sleeping"),
      PluginOption.ofEnum("wake", "wake-q",
          "unlock slow path: wake_up_process inside wait_lock (3.x) or wake_q after dropping it (4.6+)",
          "inside-wait-lock", "wake-q"),
      PluginOption.ofEnum("wait-lock", "qspinlock", "the spinlock algorithm of wait_lock (the kernel's spinlock choice)",
          "qspinlock", "pv-qspinlock", "ticket", "pv-ticket", "tas", "ppc-splpar"));

  @Override
  public String name() {
    return "mutex-count";
  }

  @Override
  public String summary() {
    return "count-based mutex (3.15-4.9): atomic count fast path, OSQ + mutex_spin_on_owner optimistic spinning with lock stealing, FIFO sleepers";
  }

  @Override
  public LockKind lockKind() {
    return LockKind.MUTEX;
  }

  @Override
  public Set<LockCapability> lockCapabilities() {
    return Set.of(LockCapability.SLEEPING, LockCapability.VCPU_PREEMPTED_CHECK, LockCapability.OPTIMISTIC_SPIN);
  }

  @Override
  public List<PluginOption> options() {
    return OPTIONS;
  }

  @Override
  public KernelLock create(LockContext context) {
    BoundOptions o = context.options();
    return new CountMutex(context, o.bool("optimistic-spin"),
        o.choice("wake").equals("inside-wait-lock"), o.choice("wait-lock"));
  }
}

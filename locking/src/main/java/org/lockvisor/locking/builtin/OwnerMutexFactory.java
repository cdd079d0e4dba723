package org.lockvisor.locking.builtin;

import com.google.auto.service.AutoService;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.lockvisor.core.plugin.PluginOption;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockCosts;
import org.lockvisor.locking.spi.LockFactory;
import org.lockvisor.machine.Kernel;

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
  public Set<String> capabilities() {
    return Set.of("sleeping", "vcpu-preempted-check", "optimistic-spin", "handoff");
  }

  @Override
  public List<PluginOption> options() {
    return OPTIONS;
  }

  @Override
  public KernelLock create(String name, Kernel kernel, LockCosts costs, boolean vcpuIsPreemptedCheck,
      Map<String, String> options) {
    Options o = new Options(name(), OPTIONS, options);
    return new OwnerMutex(name, kernel, costs, vcpuIsPreemptedCheck, o.bool("optimistic-spin"), o.choice("wait-lock"));
  }
}

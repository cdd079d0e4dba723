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
  public Set<String> capabilities() {
    return Set.of("vcpu-preempted-check");
  }

  @Override
  public List<PluginOption> options() {
    return OPTIONS;
  }

  @Override
  public KernelLock create(String name, Kernel kernel, LockCosts costs, boolean vcpuIsPreemptedCheck,
      Map<String, String> options) {
    Options o = new Options(name(), OPTIONS, options);
    return new OsqLock(name, kernel, costs, vcpuIsPreemptedCheck);
  }
}

package org.lockvisor.locking.spi;

import java.util.Map;
import org.lockvisor.core.plugin.Plugin;
import org.lockvisor.machine.Kernel;

/**
 * Lock plugin SPI. One small final class per algorithm, registered with
 * {@code @AutoService(LockFactory.class)}; its {@link #name()} is what experiments choose
 * ({@code spinlock: pv-qspinlock}).
 */
public interface LockFactory extends Plugin {

  /** What kind of kernel lock the algorithm implements. */
  enum LockKind { SPINLOCK, MUTEX, RWSEM, OSQ }

  @Override
  default String kind() {
    return "lock";
  }

  LockKind lockKind();

  /**
   * A new lock instance named {@code name} in {@code kernel}. {@code vcpuIsPreemptedCheck}
   * says whether this kernel's spin loops consult vcpu_is_preempted (the R3 series).
   */
  KernelLock create(String name, Kernel kernel, LockCosts costs, boolean vcpuIsPreemptedCheck, Map<String, String> options);
}

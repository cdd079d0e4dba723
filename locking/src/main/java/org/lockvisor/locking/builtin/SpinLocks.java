package org.lockvisor.locking.builtin;

import com.google.common.collect.ImmutableList;
import java.util.List;
import org.lockvisor.locking.spi.LockCosts;
import org.lockvisor.machine.Kernel;

/** Builds the internal spinlock of a sleeping lock (its {@code wait_lock}) by algorithm name. */
final class SpinLocks {
  static final List<String> NAMES = ImmutableList.of("qspinlock", "pv-qspinlock", "ticket", "pv-ticket", "tas", "ppc-splpar");

  private SpinLocks() {}

  static BaseLock create(String algorithm, String name, Kernel kernel, LockCosts costs, boolean vcpuCheck) {
    return switch (algorithm) {
      case "qspinlock" -> new QueuedSpinLock(name, kernel, costs, vcpuCheck, false);
      case "pv-qspinlock" -> new QueuedSpinLock(name, kernel, costs, vcpuCheck, true);
      case "ticket" -> new TicketSpinLock(name, kernel, costs, vcpuCheck, false);
      case "pv-ticket" -> new TicketSpinLock(name, kernel, costs, vcpuCheck, true);
      case "tas" -> new TasSpinLock(name, kernel, costs, vcpuCheck);
      case "ppc-splpar" -> new SplparSpinLock(name, kernel, costs, vcpuCheck, true);
      default -> throw new IllegalArgumentException(
          "unknown spinlock [" + algorithm + "] for " + name + "; known: " + NAMES);
    };
  }
}

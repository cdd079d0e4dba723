package org.lockvisor.workloads.spi;

import java.util.Map;
import org.lockvisor.devices.spi.LockProvider;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockFactory.LockKind;
import org.lockvisor.machine.Kernel;

/**
 * Creates kernel locks for workloads that take locks themselves (locktorture). The composition
 * root answers with lock plugins bound by name and registers every lock it creates, so their
 * statistics appear in the run's {@code /proc/lock_stat} report.
 */
public interface WorkloadLocks {

  /** The algorithm the experiment chose for locks of {@code kind} in {@code kernel}, e.g. {@code qspinlock}. */
  String algorithm(Kernel kernel, LockKind kind);

  /**
   * A new lock called {@code name} in {@code kernel} of the lock plugin {@code algorithm} with
   * its {@code options}; {@code callSites} are the kernel functions that take it (its lock_stat
   * contention points).
   *
   * @throws IllegalArgumentException for an unknown algorithm, or one of another kind than {@code kind}
   */
  KernelLock create(Kernel kernel, String name, String algorithm, LockKind kind, Map<String, String> options,
      String... callSites);

  /**
   * A lock of the algorithm the experiment chose for {@code kind} in {@code kernel}, without
   * options; its name is its only contention point.
   */
  default KernelLock create(Kernel kernel, String name, LockKind kind) {
    return create(kernel, name, algorithm(kernel, kind), kind, Map.of());
  }

  /**
   * Locks from a device-style {@link LockProvider}, which decides the algorithm per kind itself
   * (a reproduction assembling its kernel by hand); naming an algorithm or options is refused.
   */
  static WorkloadLocks of(LockProvider provider) {
    return new WorkloadLocks() {
      @Override
      public String algorithm(Kernel kernel, LockKind kind) {
        return "provided";
      }

      @Override
      public KernelLock create(Kernel kernel, String name, String algorithm, LockKind kind,
          Map<String, String> options, String... callSites) {
        if (!algorithm.equals("provided") || !options.isEmpty()) {
          throw new IllegalArgumentException("these locks come from a provider that chooses the algorithm; "
              + "cannot create [" + name + "] as [" + algorithm + "] with options " + options);
        }
        return provider.create(kernel, name, kind);
      }
    };
  }

  /** No lock plugins: every call fails (contexts of workloads that take no locks). */
  WorkloadLocks NONE = new WorkloadLocks() {
    @Override
    public String algorithm(Kernel kernel, LockKind kind) {
      throw new IllegalStateException("this workload context provides no locks");
    }

    @Override
    public KernelLock create(Kernel kernel, String name, String algorithm, LockKind kind,
        Map<String, String> options, String... callSites) {
      throw new IllegalStateException("this workload context provides no locks");
    }
  };
}

package org.lockvisor.locking.spi;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import org.lockvisor.arch.spi.ArchCosts;
import org.lockvisor.locking.spi.LockFactory.LockKind;
import org.lockvisor.machine.Kernel;

/**
 * The one way a device or a workload obtains kernel locks: by kind, as the experiment chose the
 * algorithm for that kernel (guest spinlocks {@code ticket}, host mutexes {@code mutex-owner}),
 * or by naming a lock plugin and its options (locktorture's {@code torture-type}). The composition
 * root answers, binds each lock's options, and registers every lock it creates, so a device or
 * workload never names an algorithm it did not ask for and every lock appears in the run's
 * {@code /proc/lock_stat}. Devices and workloads get it from their context ({@code locks()}).
 */
public interface KernelLocks {

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

  /** No locks: every call fails (the context of a plugin that takes none). */
  KernelLocks NONE = new KernelLocks() {
    @Override
    public String algorithm(Kernel kernel, LockKind kind) {
      throw new IllegalStateException("this context provides no locks");
    }

    @Override
    public KernelLock create(Kernel kernel, String name, String algorithm, LockKind kind,
        Map<String, String> options, String... callSites) {
      throw new IllegalStateException("this context provides no locks");
    }
  };

  /**
   * Locks of the plugin {@code choice} gives for each kind, with {@code costs}, for a machine
   * assembled by hand (a test bed, an example): the chosen plugin is the only algorithm of its
   * kind; naming another is refused.
   */
  static KernelLocks of(ArchCosts costs, Function<LockKind, LockFactory> choice) {
    checkArgument(costs != null && choice != null, "costs and the choice of lock plugins must be set");
    return new KernelLocks() {
      @Override
      public String algorithm(Kernel kernel, LockKind kind) {
        return chosen(kind).name();
      }

      @Override
      public KernelLock create(Kernel kernel, String name, String algorithm, LockKind kind,
          Map<String, String> options, String... callSites) {
        LockFactory f = chosen(kind);
        checkArgument(f.name().equals(algorithm), "%s locks here are [%s]; cannot create [%s] as [%s]",
            kind.name().toLowerCase(Locale.ROOT), f.name(), name, algorithm);
        return LockContext.builder(kernel, costs).name(name).options(options).create(f);
      }

      private LockFactory chosen(LockKind kind) {
        LockFactory f = choice.apply(kind);
        checkArgument(f != null, "no %s lock plugin here", kind.name().toLowerCase(Locale.ROOT));
        checkArgument(f.lockKind() == kind, "lock [%s] is not a %s algorithm", f.name(),
            kind.name().toLowerCase(Locale.ROOT));
        return f;
      }
    };
  }
}

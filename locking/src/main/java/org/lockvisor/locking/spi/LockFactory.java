package org.lockvisor.locking.spi;

import java.util.Set;
import java.util.TreeSet;
import org.lockvisor.core.plugin.Plugin;

/**
 * Lock plugin SPI (v2). One small final class per algorithm, registered with
 * {@code @AutoService(LockFactory.class)}; its {@link #name()} is what experiments choose
 * ({@code spinlock: pv-qspinlock}), its {@link #options()} what they may set ({@code locks:
 * {mutex: {type: mutex-owner, options: {optimistic-spin: false}}}}).
 *
 * <p>{@link #create} takes one {@link LockContext}: the framework binds the options, owns the
 * accounting (lock_stat, holder preemption, the lock-hold trace) and instruments the lock's ops, so
 * a plugin implements the algorithm only. Locks are made through {@link LockContext#builder}.
 */
public interface LockFactory extends Plugin {

  /** What kind of kernel lock the algorithm implements. */
  enum LockKind { SPINLOCK, MUTEX, RWSEM, OSQ, RWLOCK }

  @Override
  default String kind() {
    return "lock";
  }

  LockKind lockKind();

  /** What the algorithm guarantees or does; gates the contract tests. */
  default Set<LockCapability> lockCapabilities() {
    return Set.of();
  }

  /** The {@link #lockCapabilities()} as labels; discovery refuses any string outside {@link LockCapability}. */
  @Override
  default Set<String> capabilities() {
    Set<String> labels = new TreeSet<>();
    lockCapabilities().forEach(c -> labels.add(c.label()));
    return Set.copyOf(labels);
  }

  /** A new lock instance as {@code context} describes it (name, kernel, costs, options...). */
  KernelLock create(LockContext context);
}

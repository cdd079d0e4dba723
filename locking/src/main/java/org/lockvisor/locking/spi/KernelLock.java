package org.lockvisor.locking.spi;

import org.lockvisor.machine.Op;
import org.lockvisor.machine.Task;

/**
 * One lock instance in a kernel (a {@code spinlock_t}, a {@code struct mutex}, an rwsem...): the
 * kernel algorithm as a state machine over the machine model. Code paths take it with the ops
 * it hands out, e.g. {@code Program.named("vhost_work_queue").op(lock.lock(IRQSAVE))...
 * .op(lock.unlock(IRQSAVE))}.
 *
 * <p>Acquisition either succeeds at once or puts the task into the waiting mode the algorithm
 * prescribes — spinning with the kernel's symbol and bail-out conditions, queueing, sleeping,
 * halting through pv_wait — and release hands over as the algorithm does. Every place where the
 * kernel consults {@code vcpu_is_preempted} consults {@link org.lockvisor.machine.Kernel#vcpuIsPreempted}.
 */
public interface KernelLock {

  /** Instance name, e.g. {@code vhost_dev.work_lock}. */
  String name();

  /** Lock class (lock_stat groups instances by class), e.g. {@code &dev->work_lock}. */
  default String lockClass() {
    return name();
  }

  /** The plugin name of the algorithm, e.g. {@code ticket}. */
  String algorithm();

  /** The op that acquires the lock in {@code mode}. */
  Op lock(LockMode mode);

  /** The op that releases the lock taken in {@code mode}. */
  Op unlock(LockMode mode);

  /** Whether {@code mode} is supported (spinlocks: the spin flavours; rwsem: READ/WRITE...). */
  boolean supports(LockMode mode);

  /** The task holding the lock (a writer for rwsems), or null. */
  Task owner();

  /** Number of readers holding an rwsem or an rwlock (0 for other locks). */
  default int readers() {
    return 0;
  }

  /**
   * lock_stat-style statistics of this instance. The framework keeps them ({@link
   * LockContext#accounting()}) and answers this for the lock it hands out; a plugin's lock need
   * not implement it.
   */
  default LockStats stats() {
    throw new IllegalStateException("lock [" + name() + "]: statistics are kept by the framework;"
        + " make locks with LockContext.builder(...).create(factory)");
  }
}

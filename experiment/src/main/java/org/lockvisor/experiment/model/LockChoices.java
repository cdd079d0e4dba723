package org.lockvisor.experiment.model;

/**
 * A kernel's lock algorithms (lock plugin names) and whether its spin loops consult
 * {@code vcpu_is_preempted} (the R3 switch; meaningful in guests only).
 *
 * @param spinlock the spinlock_t algorithm, e.g. {@code qspinlock}, {@code pv-qspinlock}, {@code ticket}
 * @param mutex the struct mutex algorithm: {@code mutex-owner} (4.10 and later) or {@code mutex-count}
 * @param rwsem the rw_semaphore algorithm, e.g. {@code rwsem-xadd}
 * @param vcpuIsPreempted whether spin-on-owner loops and OSQ consult vcpu_is_preempted
 */
public record LockChoices(String spinlock, String mutex, String rwsem, boolean vcpuIsPreempted) {
  public static final String DEFAULT_SPINLOCK = "qspinlock";
  public static final String DEFAULT_MUTEX = "mutex-owner";
  public static final String DEFAULT_RWSEM = "rwsem-xadd";

  public LockChoices {
    spinlock = spinlock == null ? DEFAULT_SPINLOCK : spinlock;
    mutex = mutex == null ? DEFAULT_MUTEX : mutex;
    rwsem = rwsem == null ? DEFAULT_RWSEM : rwsem;
  }

  /** qspinlock, mutex-owner, rwsem-xadd, vcpu_is_preempted off. */
  public static LockChoices defaults() {
    return new LockChoices(DEFAULT_SPINLOCK, DEFAULT_MUTEX, DEFAULT_RWSEM, false);
  }

  public LockChoices withSpinlock(String name) {
    return new LockChoices(name, mutex, rwsem, vcpuIsPreempted);
  }

  public LockChoices withMutex(String name) {
    return new LockChoices(spinlock, name, rwsem, vcpuIsPreempted);
  }

  public LockChoices withRwsem(String name) {
    return new LockChoices(spinlock, mutex, name, vcpuIsPreempted);
  }

  public LockChoices withVcpuIsPreempted(boolean on) {
    return new LockChoices(spinlock, mutex, rwsem, on);
  }
}

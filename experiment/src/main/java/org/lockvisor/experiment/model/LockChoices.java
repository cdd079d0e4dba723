package org.lockvisor.experiment.model;

import com.google.common.collect.ImmutableSortedMap;
import java.util.Map;
import org.lockvisor.locking.spi.LockFactory.LockKind;

/**
 * A kernel's lock algorithms (lock plugin names), their options, and whether its spin loops
 * consult {@code vcpu_is_preempted} (the R3 switch; meaningful in guests only). In an experiment
 * file each algorithm is a name ({@code mutex: mutex-owner}) or, with options, {@code mutex:
 * {type: mutex-owner, options: {optimistic-spin: false}}}; the options are those {@code lockvisor
 * plugins --options <lock>} prints, and reach every lock of that kind the kernel creates.
 *
 * @param spinlock the spinlock_t algorithm, e.g. {@code qspinlock}, {@code pv-qspinlock}, {@code ticket}
 * @param mutex the struct mutex algorithm: {@code mutex-owner} (4.10 and later) or {@code mutex-count}
 * @param rwsem the rw_semaphore algorithm, e.g. {@code rwsem-xadd}
 * @param vcpuIsPreempted whether spin-on-owner loops and OSQ consult vcpu_is_preempted
 * @param spinlockOptions options of the spinlock plugin (as given)
 * @param mutexOptions options of the mutex plugin
 * @param rwsemOptions options of the rwsem plugin
 */
public record LockChoices(String spinlock, String mutex, String rwsem, boolean vcpuIsPreempted,
    ImmutableSortedMap<String, String> spinlockOptions, ImmutableSortedMap<String, String> mutexOptions,
    ImmutableSortedMap<String, String> rwsemOptions) {
  public static final String DEFAULT_SPINLOCK = "qspinlock";
  public static final String DEFAULT_MUTEX = "mutex-owner";
  public static final String DEFAULT_RWSEM = "rwsem-xadd";

  public LockChoices {
    spinlock = spinlock == null ? DEFAULT_SPINLOCK : spinlock;
    mutex = mutex == null ? DEFAULT_MUTEX : mutex;
    rwsem = rwsem == null ? DEFAULT_RWSEM : rwsem;
    spinlockOptions = copy(spinlockOptions);
    mutexOptions = copy(mutexOptions);
    rwsemOptions = copy(rwsemOptions);
  }

  /** Algorithms without options. */
  public LockChoices(String spinlock, String mutex, String rwsem, boolean vcpuIsPreempted) {
    this(spinlock, mutex, rwsem, vcpuIsPreempted, null, null, null);
  }

  private static ImmutableSortedMap<String, String> copy(Map<String, String> m) {
    return m == null ? ImmutableSortedMap.of() : ImmutableSortedMap.copyOf(m);
  }

  /** qspinlock, mutex-owner, rwsem-xadd, vcpu_is_preempted off. */
  public static LockChoices defaults() {
    return new LockChoices(DEFAULT_SPINLOCK, DEFAULT_MUTEX, DEFAULT_RWSEM, false);
  }

  /** The algorithm chosen for {@code kind} ({@code osq} for OSQ, which has no choice). */
  public String algorithm(LockKind kind) {
    return switch (kind) {
      case SPINLOCK -> spinlock;
      case MUTEX -> mutex;
      case RWSEM -> rwsem;
      case OSQ -> "osq";
    };
  }

  /** The options given for the algorithm of {@code kind} (empty for OSQ). */
  public ImmutableSortedMap<String, String> options(LockKind kind) {
    return switch (kind) {
      case SPINLOCK -> spinlockOptions;
      case MUTEX -> mutexOptions;
      case RWSEM -> rwsemOptions;
      case OSQ -> ImmutableSortedMap.of();
    };
  }

  /** Another spinlock algorithm; its options are dropped unless the algorithm stays the same. */
  public LockChoices withSpinlock(String name) {
    return new LockChoices(name, mutex, rwsem, vcpuIsPreempted, name.equals(spinlock) ? spinlockOptions : null,
        mutexOptions, rwsemOptions);
  }

  public LockChoices withMutex(String name) {
    return new LockChoices(spinlock, name, rwsem, vcpuIsPreempted, spinlockOptions,
        name.equals(mutex) ? mutexOptions : null, rwsemOptions);
  }

  public LockChoices withRwsem(String name) {
    return new LockChoices(spinlock, mutex, name, vcpuIsPreempted, spinlockOptions, mutexOptions,
        name.equals(rwsem) ? rwsemOptions : null);
  }

  public LockChoices withVcpuIsPreempted(boolean on) {
    return new LockChoices(spinlock, mutex, rwsem, on, spinlockOptions, mutexOptions, rwsemOptions);
  }
}

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
 * <p>The rwlock_t algorithm defaults to the architecture's own family ({@link #rwlockFor}): the
 * queued rwlock on x86_64 and arm64 (4.x {@code CONFIG_QUEUED_RWLOCKS}), the powerpc rwlock with
 * {@code __rw_yield} on ppc64; no plugin models the s390 rwlock of 4.x (arch/s390/lib/spinlock.c
 * {@code _raw_read_lock_wait}), so an s390 kernel that creates an rwlock must name one.
 *
 * @param spinlock the spinlock_t algorithm, e.g. {@code qspinlock}, {@code pv-qspinlock}, {@code ticket}
 * @param mutex the struct mutex algorithm: {@code mutex-owner} (4.10 and later) or {@code mutex-count}
 * @param rwsem the rw_semaphore algorithm, e.g. {@code rwsem-xadd}
 * @param vcpuIsPreempted whether spin-on-owner loops and OSQ consult vcpu_is_preempted
 * @param spinlockOptions options of the spinlock plugin (as given)
 * @param mutexOptions options of the mutex plugin
 * @param rwsemOptions options of the rwsem plugin
 * @param rwlock the rwlock_t algorithm, e.g. {@code qrwlock}; null: the architecture's ({@link #rwlockFor})
 * @param rwlockOptions options of the rwlock plugin
 */
public record LockChoices(String spinlock, String mutex, String rwsem, boolean vcpuIsPreempted,
    ImmutableSortedMap<String, String> spinlockOptions, ImmutableSortedMap<String, String> mutexOptions,
    ImmutableSortedMap<String, String> rwsemOptions, String rwlock, ImmutableSortedMap<String, String> rwlockOptions) {
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
    rwlockOptions = copy(rwlockOptions);
  }

  /** Without an rwlock choice (the architecture's). */
  public LockChoices(String spinlock, String mutex, String rwsem, boolean vcpuIsPreempted,
      ImmutableSortedMap<String, String> spinlockOptions, ImmutableSortedMap<String, String> mutexOptions,
      ImmutableSortedMap<String, String> rwsemOptions) {
    this(spinlock, mutex, rwsem, vcpuIsPreempted, spinlockOptions, mutexOptions, rwsemOptions, null, null);
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

  /** The rwlock plugin of 4.x x86_64 and arm64 kernels (and of profiles of no known architecture). */
  public static final String DEFAULT_RWLOCK = "qrwlock";
  /** The rwlock plugin of 4.x ppc64 kernels. */
  public static final String PPC64_RWLOCK = "ppc-splpar-rwlock";

  /**
   * The rwlock_t family of a 4.x kernel on the architecture of profile {@code archProfile}
   * (x86_64-kvm, arm64-kvm: {@code qrwlock}; ppc64-powervm: {@code ppc-splpar-rwlock}), or null
   * for s390, whose 4.x rwlock no plugin models. A profile is known by its name's architecture
   * prefix.
   */
  public static String rwlockFor(String archProfile) {
    if (archProfile != null && archProfile.startsWith("ppc64")) {
      return PPC64_RWLOCK;
    }
    if (archProfile != null && archProfile.startsWith("s390")) {
      return null;
    }
    return DEFAULT_RWLOCK;
  }

  /** The rwlock algorithm in a kernel on {@code archProfile}: the choice, else the architecture's (or null). */
  public String rwlock(String archProfile) {
    return rwlock != null ? rwlock : rwlockFor(archProfile);
  }

  /**
   * The algorithm chosen for {@code kind} ({@code osq} for OSQ, which has no choice); an rwlock
   * left to the architecture is {@link #DEFAULT_RWLOCK} here (use {@link #algorithm(LockKind,
   * String)} where the profile is known).
   */
  public String algorithm(LockKind kind) {
    return algorithm(kind, null);
  }

  /** The algorithm chosen for {@code kind} in a kernel on {@code archProfile} (null: no rwlock plugin fits). */
  public String algorithm(LockKind kind, String archProfile) {
    return switch (kind) {
      case SPINLOCK -> spinlock;
      case MUTEX -> mutex;
      case RWSEM -> rwsem;
      case OSQ -> "osq";
      case RWLOCK -> rwlock(archProfile);
    };
  }

  /** The options given for the algorithm of {@code kind} (empty for OSQ). */
  public ImmutableSortedMap<String, String> options(LockKind kind) {
    return switch (kind) {
      case SPINLOCK -> spinlockOptions;
      case MUTEX -> mutexOptions;
      case RWSEM -> rwsemOptions;
      case OSQ -> ImmutableSortedMap.of();
      case RWLOCK -> rwlockOptions;
    };
  }

  /** Another spinlock algorithm; its options are dropped unless the algorithm stays the same. */
  public LockChoices withSpinlock(String name) {
    return new LockChoices(name, mutex, rwsem, vcpuIsPreempted, name.equals(spinlock) ? spinlockOptions : null,
        mutexOptions, rwsemOptions, rwlock, rwlockOptions);
  }

  public LockChoices withMutex(String name) {
    return new LockChoices(spinlock, name, rwsem, vcpuIsPreempted, spinlockOptions,
        name.equals(mutex) ? mutexOptions : null, rwsemOptions, rwlock, rwlockOptions);
  }

  public LockChoices withRwsem(String name) {
    return new LockChoices(spinlock, mutex, name, vcpuIsPreempted, spinlockOptions, mutexOptions,
        name.equals(rwsem) ? rwsemOptions : null, rwlock, rwlockOptions);
  }

  /** Another rwlock algorithm (null: the architecture's); options kept only if it stays the same. */
  public LockChoices withRwlock(String name) {
    return new LockChoices(spinlock, mutex, rwsem, vcpuIsPreempted, spinlockOptions, mutexOptions, rwsemOptions,
        name, java.util.Objects.equals(name, rwlock) ? rwlockOptions : null);
  }

  public LockChoices withVcpuIsPreempted(boolean on) {
    return new LockChoices(spinlock, mutex, rwsem, on, spinlockOptions, mutexOptions, rwsemOptions, rwlock,
        rwlockOptions);
  }
}

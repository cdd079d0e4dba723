package org.lockvisor.workloads.locktorture;

import static com.google.common.base.Preconditions.checkArgument;

import org.lockvisor.locking.spi.LockFactory.LockKind;
import org.lockvisor.locking.spi.LockMode;

/**
 * locktorture module parameters (the subset that shapes the load), named as in the kernel where
 * the kernel has them.
 *
 * @param tortureType {@code spin_lock}, {@code spin_lock_irq}, {@code mutex_lock} or {@code rwsem_lock}
 * @param lock the lock plugin; empty for the VM's kernel choice for that kind of lock
 * @param nwriters writer kthreads; 0 for twice the VM's vCPUs (the module's default)
 * @param nreaders reader kthreads (rw_lock, rw_lock_irq and rwsem_lock only)
 * @param holdNs time in the critical section (the module's write_delay / read_delay)
 * @param holdJitterNs the hold time is uniform in [holdNs, holdNs + holdJitterNs]
 * @param thinkNs kernel work between a release and the next acquisition
 * @param thinkJitterNs the think time is uniform in [thinkNs, thinkNs + thinkJitterNs]
 */
public record LockTortureConfig(
    String tortureType,
    String lock,
    int nwriters,
    int nreaders,
    long holdNs,
    long holdJitterNs,
    long thinkNs,
    long thinkJitterNs,
    java.util.Map<String, String> lockOptions) {

  public LockTortureConfig {
    lockOptions = lockOptions == null ? com.google.common.collect.ImmutableSortedMap.of()
        : com.google.common.collect.ImmutableSortedMap.copyOf(lockOptions);
    checkArgument(kindOf(tortureType) != null, "torture-type [%s] is not one of %s", tortureType, TYPES);
    lock = lock == null ? "" : lock;
    checkArgument(nwriters >= 0, "nwriters must not be negative: %s", nwriters);
    checkArgument(nreaders >= 0, "nreaders must not be negative: %s", nreaders);
    checkArgument(nreaders == 0 || READER_TYPES.contains(tortureType),
        "nreaders [%s] needs torture-type %s; [%s] has no readers", nreaders, READER_TYPES, tortureType);
    checkArgument(holdNs >= 0 && holdJitterNs >= 0 && thinkNs >= 0 && thinkJitterNs >= 0,
        "hold and think times must not be negative");
  }

  /** Without options of its own for the lock. */
  public LockTortureConfig(String tortureType, String lock, int nwriters, int nreaders, long holdNs, long holdJitterNs,
      long thinkNs, long thinkJitterNs) {
    this(tortureType, lock, nwriters, nreaders, holdNs, holdJitterNs, thinkNs, thinkJitterNs, null);
  }

  /**
   * {@code KEY=VALUE[,KEY=VALUE...]} as a map (the {@code lock-options} option); empty text is no
   * options.
   *
   * @throws IllegalArgumentException an entry without {@code =} or with an empty key, or a key twice
   */
  public static java.util.Map<String, String> parseLockOptions(String text) {
    java.util.Map<String, String> options = new java.util.TreeMap<>();
    if (text == null || text.isBlank()) {
      return options;
    }
    for (String entry : text.split(",")) {
      int eq = entry.indexOf('=');
      checkArgument(eq > 0 && !entry.substring(0, eq).isBlank(),
          "lock-options entry [%s] is not KEY=VALUE; e.g. [optimistic-spin=false,wait-lock=ticket]", entry.trim());
      String key = entry.substring(0, eq).trim();
      checkArgument(options.put(key, entry.substring(eq + 1).trim()) == null, "lock-options: [%s] given twice", key);
    }
    return options;
  }

  /** The torture types lockvisor models. */
  public static final java.util.List<String> TYPES = java.util.List.of("spin_lock", "spin_lock_irq", "rw_lock",
      "rw_lock_irq", "mutex_lock", "rwsem_lock");

  /** The torture types with readers (kernel/locking/locktorture.c: rw_lock_ops, rw_lock_irq_ops, rwsem_lock_ops). */
  public static final java.util.List<String> READER_TYPES = java.util.List.of("rw_lock", "rw_lock_irq", "rwsem_lock");

  /** The kind of kernel lock a torture type exercises, or null for an unknown type. */
  public static LockKind kindOf(String tortureType) {
    if (tortureType == null) {
      return null;
    }
    return switch (tortureType) {
      case "spin_lock", "spin_lock_irq" -> LockKind.SPINLOCK;
      case "rw_lock", "rw_lock_irq" -> LockKind.RWLOCK;
      case "mutex_lock" -> LockKind.MUTEX;
      case "rwsem_lock" -> LockKind.RWSEM;
      default -> null;
    };
  }

  public LockKind kind() {
    return kindOf(tortureType);
  }

  /** The mode writers take the lock in. */
  public LockMode writeMode() {
    return switch (tortureType) {
      case "spin_lock" -> LockMode.PLAIN;
      case "spin_lock_irq" -> LockMode.IRQ;
      case "mutex_lock" -> LockMode.SLEEPING;
      // locktorture.c torture_rwlock_write_lock / torture_rwlock_write_lock_irq (write_lock_irqsave)
      case "rw_lock" -> LockMode.WRITE_LOCK;
      case "rw_lock_irq" -> LockMode.WRITE_LOCK_IRQSAVE;
      default -> LockMode.WRITE;
    };
  }

  /** The mode readers take the lock in (torture types with readers). */
  public LockMode readMode() {
    return switch (tortureType) {
      case "rw_lock" -> LockMode.READ_LOCK;
      case "rw_lock_irq" -> LockMode.READ_LOCK_IRQSAVE;
      default -> LockMode.READ;
    };
  }

  /** Writers for a VM with {@code vcpus} vCPUs. */
  public int writers(int vcpus) {
    return nwriters > 0 ? nwriters : 2 * vcpus;
  }
}

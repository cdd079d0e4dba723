package org.lockvisor.locking.spi;

import static com.google.common.base.Preconditions.checkState;

import java.util.Set;
import org.lockvisor.machine.Task;

/**
 * How a lock is taken, i.e. which kernel API the code path calls. Spinlock flavours differ in
 * what they disable while spinning and holding: {@code spin_lock} disables preemption,
 * {@code spin_lock_irq} also interrupts, {@code spin_lock_irqsave} saves and restores the
 * interrupt state, {@code spin_lock_bh} disables softirqs (modelled as preemption off). Sleeping
 * locks use {@link #SLEEPING}; rwsems use {@link #READ} or {@link #WRITE}. rwlock_t has the same
 * four flavours for each side ({@code read_lock*}, {@code write_lock*}, include/linux/rwlock_api_smp.h
 * 4.8), each entering the out-of-line {@code _raw_read_lock*} / {@code _raw_write_lock*} of
 * kernel/locking/spinlock.c.
 */
public enum LockMode {
  PLAIN("_raw_spin_lock", "_raw_spin_unlock"),
  IRQ("_raw_spin_lock_irq", "_raw_spin_unlock_irq"),
  IRQSAVE("_raw_spin_lock_irqsave", "_raw_spin_unlock_irqrestore"),
  BH("_raw_spin_lock_bh", "_raw_spin_unlock_bh"),
  SLEEPING("mutex_lock", "mutex_unlock"),
  READ("down_read", "up_read"),
  WRITE("down_write", "up_write"),
  READ_LOCK("_raw_read_lock", "_raw_read_unlock"),
  READ_LOCK_IRQ("_raw_read_lock_irq", "_raw_read_unlock_irq"),
  READ_LOCK_IRQSAVE("_raw_read_lock_irqsave", "_raw_read_unlock_irqrestore"),
  READ_LOCK_BH("_raw_read_lock_bh", "_raw_read_unlock_bh"),
  WRITE_LOCK("_raw_write_lock", "_raw_write_unlock"),
  WRITE_LOCK_IRQ("_raw_write_lock_irq", "_raw_write_unlock_irq"),
  WRITE_LOCK_IRQSAVE("_raw_write_lock_irqsave", "_raw_write_unlock_irqrestore"),
  WRITE_LOCK_BH("_raw_write_lock_bh", "_raw_write_unlock_bh");

  /** The {@code spin_lock*} flavours. */
  public static final Set<LockMode> SPIN = java.util.Collections.unmodifiableSet(java.util.EnumSet.of(PLAIN, IRQ, IRQSAVE, BH));

  /** The {@code read_lock*} flavours of an rwlock_t. */
  public static final Set<LockMode> RWLOCK_READ = java.util.Collections.unmodifiableSet(
      java.util.EnumSet.of(READ_LOCK, READ_LOCK_IRQ, READ_LOCK_IRQSAVE, READ_LOCK_BH));

  /** The {@code write_lock*} flavours of an rwlock_t. */
  public static final Set<LockMode> RWLOCK_WRITE = java.util.Collections.unmodifiableSet(
      java.util.EnumSet.of(WRITE_LOCK, WRITE_LOCK_IRQ, WRITE_LOCK_IRQSAVE, WRITE_LOCK_BH));

  /** Every rwlock_t flavour, read and write. */
  public static final Set<LockMode> RWLOCK = java.util.Collections.unmodifiableSet(
      java.util.EnumSet.range(READ_LOCK, WRITE_LOCK_BH));

  private final String lockSymbol;
  private final String unlockSymbol;

  LockMode(String lockSymbol, String unlockSymbol) {
    this.lockSymbol = lockSymbol;
    this.unlockSymbol = unlockSymbol;
  }

  /** The out-of-line kernel function a caller of this mode enters (its perf symbol). */
  public String lockSymbol() {
    return lockSymbol;
  }

  public String unlockSymbol() {
    return unlockSymbol;
  }

  /** Whether this is a {@code spin_lock*} flavour. */
  public boolean isSpin() {
    // a switch, not SPIN.contains: this runs on every lock and unlock
    return switch (this) {
      case PLAIN, IRQ, IRQSAVE, BH -> true;
      default -> false;
    };
  }

  /** Whether this is an rwlock_t flavour ({@code read_lock*} or {@code write_lock*}). */
  public boolean isRwlock() {
    return switch (this) {
      case READ_LOCK, READ_LOCK_IRQ, READ_LOCK_IRQSAVE, READ_LOCK_BH,
          WRITE_LOCK, WRITE_LOCK_IRQ, WRITE_LOCK_IRQSAVE, WRITE_LOCK_BH -> true;
      default -> false;
    };
  }

  /** Whether the lock is taken shared: an rwsem's READ or an rwlock's {@code read_lock*}. */
  public boolean isShared() {
    return switch (this) {
      case READ, READ_LOCK, READ_LOCK_IRQ, READ_LOCK_IRQSAVE, READ_LOCK_BH -> true;
      default -> false;
    };
  }

  /**
   * The spinlock flavour that disables the same things: {@code write_lock_irq} disables what
   * {@code spin_lock_irq} does (include/linux/rwlock_api_smp.h); a spinlock flavour is itself.
   */
  public LockMode spinFlavour() {
    return switch (this) {
      case READ_LOCK, WRITE_LOCK -> PLAIN;
      case READ_LOCK_IRQ, WRITE_LOCK_IRQ -> IRQ;
      case READ_LOCK_IRQSAVE, WRITE_LOCK_IRQSAVE -> IRQSAVE;
      case READ_LOCK_BH, WRITE_LOCK_BH -> BH;
      default -> {
        checkState(isSpin(), "%s is not a spinlock or rwlock flavour", this);
        yield this;
      }
    };
  }

  /** The {@code write_lock*} flavour for a {@code read_lock*} one and back (same irq handling). */
  public LockMode otherSide() {
    checkState(isRwlock(), "%s is not an rwlock flavour", this);
    return values()[isShared() ? ordinal() + 4 : ordinal() - 4];
  }

  /**
   * What {@code spin_lock*} disables before the arch lock (include/linux/spinlock_api_smp.h
   * {@code __raw_spin_lock_irqsave} and friends): interrupts for IRQ (saved for IRQSAVE), then
   * preemption. BH is modelled as preemption off.
   */
  public void enter(Task t) {
    checkState(isSpin() || isRwlock(), "%s is not a spinlock or rwlock flavour", this);
    switch (spinFlavour()) {
      case IRQ -> t.irqDisable();
      case IRQSAVE -> t.irqSave();
      default -> {}
    }
    t.preemptDisable();
  }

  /**
   * What {@code spin_unlock*} re-enables (interrupts first, then the preemption point). The
   * calling op must return {@link org.lockvisor.machine.Op#NEXT} right after.
   */
  public void exit(Task t) {
    checkState(isSpin() || isRwlock(), "%s is not a spinlock or rwlock flavour", this);
    switch (spinFlavour()) {
      case IRQ -> t.irqEnable();
      case IRQSAVE -> t.irqRestore();
      default -> {}
    }
    t.preemptEnable();
  }
}

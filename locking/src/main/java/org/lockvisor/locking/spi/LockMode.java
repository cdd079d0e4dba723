package org.lockvisor.locking.spi;

import static com.google.common.base.Preconditions.checkState;

import java.util.Set;
import org.lockvisor.machine.Task;

/**
 * How a lock is taken, i.e. which kernel API the code path calls. Spinlock flavours differ in
 * what they disable while spinning and holding: {@code spin_lock} disables preemption,
 * {@code spin_lock_irq} also interrupts, {@code spin_lock_irqsave} saves and restores the
 * interrupt state, {@code spin_lock_bh} disables softirqs (modelled as preemption off). Sleeping
 * locks use {@link #SLEEPING}; rwsems use {@link #READ} or {@link #WRITE}.
 */
public enum LockMode {
  PLAIN("_raw_spin_lock", "_raw_spin_unlock"),
  IRQ("_raw_spin_lock_irq", "_raw_spin_unlock_irq"),
  IRQSAVE("_raw_spin_lock_irqsave", "_raw_spin_unlock_irqrestore"),
  BH("_raw_spin_lock_bh", "_raw_spin_unlock_bh"),
  SLEEPING("mutex_lock", "mutex_unlock"),
  READ("down_read", "up_read"),
  WRITE("down_write", "up_write");

  /** The {@code spin_lock*} flavours. */
  public static final Set<LockMode> SPIN = java.util.Collections.unmodifiableSet(java.util.EnumSet.of(PLAIN, IRQ, IRQSAVE, BH));

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
    return SPIN.contains(this);
  }

  /**
   * What {@code spin_lock*} disables before the arch lock (include/linux/spinlock_api_smp.h
   * {@code __raw_spin_lock_irqsave} and friends): interrupts for IRQ (saved for IRQSAVE), then
   * preemption. BH is modelled as preemption off.
   */
  public void enter(Task t) {
    checkState(isSpin(), "%s is not a spinlock flavour", this);
    switch (this) {
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
    checkState(isSpin(), "%s is not a spinlock flavour", this);
    switch (this) {
      case IRQ -> t.irqEnable();
      case IRQSAVE -> t.irqRestore();
      default -> {}
    }
    t.preemptEnable();
  }
}

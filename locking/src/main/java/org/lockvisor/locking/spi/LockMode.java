package org.lockvisor.locking.spi;

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
}

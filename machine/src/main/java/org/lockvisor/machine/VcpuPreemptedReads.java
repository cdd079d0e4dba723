package org.lockvisor.machine;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * What a guest kernel's {@code vcpu_is_preempted(cpu)} reads cost and how many were made: the
 * pricing every lock plugin charges where the kernel runs the check (the arch profile's {@code
 * VCPU_PREEMPTED_CHECK}: x86's {@code __kvm_vcpu_is_preempted} reading the steal-time record,
 * arm64's {@code kvm_vcpu_is_preempted}; powerpc inlines its {@code yield_count} load into the
 * caller). Every read of a spin loop is charged through {@link Task#startSpin(int, SpinCondition,
 * long, SpinWatch, long)} with {@link #spinCheckPeriodNs}; a one-off read before spinning ({@code
 * mutex_can_spin_on_owner}, {@code rwsem_can_spin_on_owner}, the OSQ's check of its predecessor)
 * with {@link #startCheck}. What the hypervisor answers is the kernel's {@link
 * Kernel#vcpuIsPreempted}; this class prices the question. One per kernel ({@link
 * Kernel#vcpuPreemptedReads}); nothing is charged until {@link #setCheckCost} prices reads.
 */
public final class VcpuPreemptedReads {
  private final Machine machine;
  private long checkNs;
  private int checkSymbol = -1;
  private long checks;
  private long checkTimeNs;

  VcpuPreemptedReads(Machine machine) {
    this.machine = machine;
  }

  /**
   * What one read costs in this kernel (0: nothing is read) and the function perf shows it in, or
   * null where the arch inlines the check into its caller.
   */
  public void setCheckCost(long ns, String function) {
    checkArgument(ns >= 0, "vcpu_is_preempted cost must not be negative: %s", ns);
    this.checkNs = ns;
    this.checkSymbol = function == null ? -1 : machine.symbol(function, Machine.DOMAIN_KERNEL);
  }

  /** The cost of one vcpu_is_preempted read (0 when unpriced). */
  public long checkNs() {
    return checkNs;
  }

  /** The symbol id of the arch's check function, or -1 where it is inlined. */
  public int checkSymbol() {
    return checkSymbol;
  }

  /**
   * The spin time between two vcpu_is_preempted reads of a loop whose iteration takes {@code
   * loopNs} besides the read and that reads once every {@code loopsPerCheck} iterations
   * ({@code loopsPerCheck * loopNs + cost}); 0 when {@code check} is off or reads are unpriced.
   */
  public long spinCheckPeriodNs(boolean check, long loopNs, int loopsPerCheck) {
    checkArgument(loopNs >= 0 && loopsPerCheck > 0, "bad spin loop: %s ns, a read every %s", loopNs, loopsPerCheck);
    return check && checkNs > 0 ? loopsPerCheck * Math.max(0, loopNs) + checkNs : 0;
  }

  /**
   * A one-off read by {@code t} outside a spin loop (the check before spinning, {@code
   * mutex_can_spin_on_owner}; the read that ends a loop at its first test): when {@code check} is
   * on and reads are priced, starts the read's work, charged to the arch's check function (or to
   * {@code callerSymbol} where the arch inlines it), counts it and returns true (the calling op
   * returns {@link Op#AGAIN} and goes on at its next step); else false, nothing charged.
   */
  public boolean startCheck(Task t, boolean check, int callerSymbol) {
    if (!check || checkNs <= 0) {
      return false;
    }
    count(1, checkNs);
    t.startWork(checkNs, checkSymbol >= 0 ? checkSymbol : callerSymbol, false);
    return true;
  }

  /** Counts {@code n} reads that took {@code ns} of CPU time (a spin loop's, from the task). */
  void count(long n, long ns) {
    checks += n;
    checkTimeNs += ns;
  }

  /** vcpu_is_preempted reads since the last {@link Kernel#resetStats}. */
  public long checks() {
    return checks;
  }

  /** CPU time of those reads. */
  public long checkTimeNs() {
    return checkTimeNs;
  }

  void reset() {
    checks = 0;
    checkTimeNs = 0;
  }
}

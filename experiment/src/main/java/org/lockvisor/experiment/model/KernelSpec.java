package org.lockvisor.experiment.model;

import com.google.common.collect.ImmutableList;
import java.util.List;

/**
 * Scheduler-core behaviour of one kernel that changed between kernel generations, for the host
 * ({@code host.kernel}) or a guest ({@code vms[i].kernel}). The defaults are today's kernels on
 * the arch profile; the R1 reproduction sets the 3.0 wakeup path, the R3 one the PowerVM guest's
 * reschedule IPIs and no paravirt steal-time accounting.
 *
 * @param ttwuQueue when try_to_wake_up queues a remote wakee on the target's wake list instead
 *     of taking its runqueue lock: {@code cross-llc} (3.5 and later: only across last-level
 *     caches), {@code any-remote} (3.0-3.4: any other CPU) or {@code never}
 * @param ttwuWaitsOnCpu whether try_to_wake_up spins until a wakee still being switched out is
 *     off its CPU ({@code while (p->on_cpu) cpu_relax();} in 3.0 on x86)
 * @param reschedIpi whether a wakeup that preempts a task on another running CPU sends it a
 *     priced reschedule IPI, taken with the platform's interrupt accept path (PowerVM: the H_XIRR
 *     and H_EOI hcalls); off, the target reacts at once and nothing is priced (guests only)
 * @param stealTimeAccounting whether the guest scheduler's task clock excludes steal time
 *     (CONFIG_PARAVIRT_TIME_ACCOUNTING); null follows the arch profile (on where the hypervisor
 *     publishes steal time); guests only
 * @param irqTimeAccounting CONFIG_IRQ_TIME_ACCOUNTING (kernel/sched.c 3.0: {@code
 *     irqtime_account_irq}, {@code update_rq_clock_task}): a thread's CPU time excludes the
 *     hardirq and softirq time spent in its context (what {@code top} shows of the vhost worker);
 *     Kconfig default n; host only (the plugins' per-thread CPU figures of host threads read it)
 * @param threadsPerCore the hardware threads of each core the hypervisor presents to the guest
 *     ({@code threads-per-core}, 1, 2, 4 or 8): its scheduling domains group that many consecutive
 *     vCPUs as SMT siblings (a PowerVM VP of a POWER8 core in SMT mode, dispatched together by
 *     {@code powervm-dispatch smt}); 1, the default, as {@code Platforms.guestTopology} presents
 *     one thread per core; guests only
 * @param hz the guest kernel's CONFIG_HZ ({@code hz}: 100, 250 or 1000, the choices of 4.8's
 *     kernel/Kconfig.hz offered on ppc64 and x86): the scheduler tick's period is 1e9 / hz ns, and
 *     with it everything the tick drives ({@code scheduler_tick}: {@code check_preempt_tick}, the
 *     balance intervals in jiffies); null follows the arch profile's {@code guestHz}; guests only
 */
public record KernelSpec(String ttwuQueue, boolean ttwuWaitsOnCpu, boolean reschedIpi, Boolean stealTimeAccounting,
    boolean irqTimeAccounting, int threadsPerCore, Integer hz) {
  public static final String CROSS_LLC = "cross-llc";
  public static final String ANY_REMOTE = "any-remote";
  public static final String NEVER = "never";
  /** The values of {@code ttwu-queue}. */
  public static final List<String> TTWU_QUEUE_MODES = ImmutableList.of(CROSS_LLC, ANY_REMOTE, NEVER);

  public KernelSpec {
    ttwuQueue = ttwuQueue == null ? CROSS_LLC : ttwuQueue;
  }

  /** The values of {@code threads-per-core}. */
  public static final List<Integer> THREADS_PER_CORE = ImmutableList.of(1, 2, 4, 8);

  /**
   * The values of {@code hz}: 4.8's kernel/Kconfig.hz choices HZ_100, HZ_250 (its default) and
   * HZ_1000 (HZ_300 is offered too, but no ppc64 or x86 server configuration of the era uses it).
   */
  public static final List<Integer> HZ_VALUES = ImmutableList.of(100, 250, 1000);

  /** A kernel shown {@code threadsPerCore} threads per core, ticking at the profile's HZ. */
  public KernelSpec(String ttwuQueue, boolean ttwuWaitsOnCpu, boolean reschedIpi, Boolean stealTimeAccounting,
      boolean irqTimeAccounting, int threadsPerCore) {
    this(ttwuQueue, ttwuWaitsOnCpu, reschedIpi, stealTimeAccounting, irqTimeAccounting, threadsPerCore, null);
  }

  /** A kernel without CONFIG_IRQ_TIME_ACCOUNTING, one thread per core. */
  public KernelSpec(String ttwuQueue, boolean ttwuWaitsOnCpu, boolean reschedIpi, Boolean stealTimeAccounting) {
    this(ttwuQueue, ttwuWaitsOnCpu, reschedIpi, stealTimeAccounting, false);
  }

  /** A kernel shown one thread per core. */
  public KernelSpec(String ttwuQueue, boolean ttwuWaitsOnCpu, boolean reschedIpi, Boolean stealTimeAccounting,
      boolean irqTimeAccounting) {
    this(ttwuQueue, ttwuWaitsOnCpu, reschedIpi, stealTimeAccounting, irqTimeAccounting, 1);
  }

  /** cross-llc wake lists, no on_cpu wait, no priced reschedule IPIs, steal time as the profile says. */
  public static KernelSpec defaults() {
    return new KernelSpec(CROSS_LLC, false, false, null);
  }

  public KernelSpec withTtwuQueue(String mode) {
    return new KernelSpec(mode, ttwuWaitsOnCpu, reschedIpi, stealTimeAccounting, irqTimeAccounting, threadsPerCore, hz);
  }

  public KernelSpec withTtwuWaitsOnCpu(boolean on) {
    return new KernelSpec(ttwuQueue, on, reschedIpi, stealTimeAccounting, irqTimeAccounting, threadsPerCore, hz);
  }

  public KernelSpec withReschedIpi(boolean on) {
    return new KernelSpec(ttwuQueue, ttwuWaitsOnCpu, on, stealTimeAccounting, irqTimeAccounting, threadsPerCore, hz);
  }

  /** {@code on} null: as the arch profile says. */
  public KernelSpec withStealTimeAccounting(Boolean on) {
    return new KernelSpec(ttwuQueue, ttwuWaitsOnCpu, reschedIpi, on, irqTimeAccounting, threadsPerCore, hz);
  }

  public KernelSpec withIrqTimeAccounting(boolean on) {
    return new KernelSpec(ttwuQueue, ttwuWaitsOnCpu, reschedIpi, stealTimeAccounting, on, threadsPerCore, hz);
  }

  /** {@code threads-per-core}: the SMT siblings per core the guest's topology presents. */
  public KernelSpec withThreadsPerCore(int threads) {
    return new KernelSpec(ttwuQueue, ttwuWaitsOnCpu, reschedIpi, stealTimeAccounting, irqTimeAccounting, threads, hz);
  }

  /** {@code hz}: the guest's CONFIG_HZ; null: the arch profile's. */
  public KernelSpec withHz(Integer value) {
    return new KernelSpec(ttwuQueue, ttwuWaitsOnCpu, reschedIpi, stealTimeAccounting, irqTimeAccounting, threadsPerCore,
        value);
  }
}

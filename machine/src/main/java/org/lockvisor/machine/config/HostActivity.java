package org.lockvisor.machine.config;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * What else a real host does on its physical CPUs, so that symmetric scenarios are not
 * artificially gang-scheduled. Real hosts are asynchronous: ticks, timer and device interrupts,
 * kworkers and softirqs land on some CPUs and not on others.
 *
 * <ul>
 *   <li>Tick phase: Linux programs each CPU's tick on the jiffy grid ({@code
 *       tick_setup_sched_timer}, kernel/time/tick-sched.c 3.x), so without skew all CPUs tick at
 *       once; with {@code sched_skew_tick=1} CPU {@code i} is offset by {@code i × (tick / 2) /
 *       nr_cpus}. {@link TickPhase#LEGACY} keeps the model's older behaviour: a CPU's tick runs
 *       one period after it last left idle.
 *   <li>Softirq load: interrupts arriving on each CPU as a Poisson process of {@code
 *       softirqPerSecond}, each running {@code softirqNs} of {@code __do_softirq} (timer, RCU,
 *       network and block completions of everything else the host runs).
 *   <li>Kworker load: a per-CPU kworker (bound workqueue) woken as a Poisson process of {@code
 *       kworkerPerSecond}, each running {@code kworkerNs} of {@code process_one_work}; a wakeup
 *       while it runs is merged (queue_work on a pending item). Its wakeups preempt vCPU threads
 *       by CFS's rules, at different times on different CPUs.
 * </ul>
 *
 * <p>Every draw comes from a named random stream per CPU, so a run is deterministic per seed.
 * Rates and durations are estimates (a host with an otherwise idle userspace), set per profile in
 * {@code Platforms.hostActivity} and overridable per experiment.
 *
 * @param tickPhase how host ticks are placed
 * @param softirqPerSecond softirq arrivals per second per CPU (0: none)
 * @param softirqNs handler time per softirq
 * @param kworkerPerSecond kworker wakeups per second per CPU (0: none)
 * @param kworkerNs work per kworker wakeup
 */
public record HostActivity(TickPhase tickPhase, double softirqPerSecond, long softirqNs, double kworkerPerSecond,
    long kworkerNs) {

  /** Where a host CPU's tick falls. */
  public enum TickPhase {
    /** One period after the CPU last started running a task (the model's original behaviour). */
    LEGACY,
    /** On the jiffy grid, every CPU at the same instant (sched_skew_tick=0, the default). */
    ALIGNED,
    /** On the jiffy grid, CPU i offset by i × (tick / 2) / nr_cpus (sched_skew_tick=1). */
    SKEWED
  }

  /** No background activity, legacy tick placement: the model as it was before issue 17. */
  public static final HostActivity OFF = new HostActivity(TickPhase.LEGACY, 0, 0, 0, 0);

  public HostActivity {
    checkArgument(tickPhase != null, "tickPhase must be set");
    checkArgument(softirqPerSecond >= 0 && kworkerPerSecond >= 0 && !Double.isNaN(softirqPerSecond)
        && !Double.isNaN(kworkerPerSecond), "background rates must not be negative: [%s, %s]", softirqPerSecond,
        kworkerPerSecond);
    checkArgument(softirqNs >= 0 && kworkerNs >= 0, "background durations must not be negative");
    checkArgument(softirqPerSecond == 0 || softirqNs > 0, "softirqs at [%s]/s need a positive duration",
        softirqPerSecond);
    checkArgument(kworkerPerSecond == 0 || kworkerNs > 0, "kworker wakeups at [%s]/s need a positive duration",
        kworkerPerSecond);
  }

  /** Whether anything runs besides the scenario's own threads. */
  public boolean hasLoad() {
    return softirqPerSecond > 0 || kworkerPerSecond > 0;
  }

  public HostActivity withTickPhase(TickPhase phase) {
    return new HostActivity(phase, softirqPerSecond, softirqNs, kworkerPerSecond, kworkerNs);
  }

  public HostActivity withoutLoad() {
    return new HostActivity(tickPhase, 0, 0, 0, 0);
  }
}

package org.lockvisor.machine.config;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * What the machine needs to know about one kernel: its tick, its preemption model, its
 * try_to_wake_up variant and the costs of its scheduling paths (ns). Costs come from the arch
 * profile; the experiment layer builds this record, tests may build it by hand.
 *
 * @param tickNs period of the scheduler tick (1e9 / HZ)
 * @param preemptibleKernel CONFIG_PREEMPT: kernel code is preemptible where preempt_count is 0
 * @param ttwuQueue when wakeups go through the remote wake list + IPI
 * @param llcSize CPUs per last-level cache domain (consecutive CPU indexes), for CROSS_LLC
 * @param contextSwitchNs direct cost of a context switch
 * @param idleExitNs extra latency when an idle CPU starts running a woken task
 * @param ttwuRunningNs try_to_wake_up when the target is already running (pi_lock round trip)
 * @param ttwuOnRqNs try_to_wake_up when the target is still on its runqueue
 * @param ttwuFullNs full wakeup: select_task_rq, enqueue, check_preempt_curr
 * @param ipiSendNs sending a reschedule IPI (bare metal); guests use {@code ipiExitReason}
 * @param ipiExits whether sending an IPI from this kernel is a VM exit (guest without PV IPI)
 * @param tickCostNs cost of the tick handler
 */
public record KernelConfig(
    long tickNs,
    boolean preemptibleKernel,
    TtwuQueueMode ttwuQueue,
    int llcSize,
    long contextSwitchNs,
    long idleExitNs,
    long ttwuRunningNs,
    long ttwuOnRqNs,
    long ttwuFullNs,
    long ipiSendNs,
    boolean ipiExits,
    long tickCostNs) {

  public KernelConfig {
    checkArgument(tickNs > 0, "tickNs must be positive: %s", tickNs);
    checkArgument(llcSize > 0, "llcSize must be positive: %s", llcSize);
    checkArgument(contextSwitchNs >= 0 && idleExitNs >= 0 && ttwuRunningNs >= 0 && ttwuOnRqNs >= 0
        && ttwuFullNs >= 0 && ipiSendNs >= 0 && tickCostNs >= 0, "costs must not be negative");
    checkArgument(ttwuQueue != null, "ttwuQueue must be set");
  }

  /** A kernel whose scheduling paths cost nothing; useful in tests of exact timing. */
  public static KernelConfig zeroCost(long tickNs) {
    return new KernelConfig(tickNs, false, TtwuQueueMode.NEVER, 1 << 20, 0, 0, 0, 0, 0, 0, false, 0);
  }

  public KernelConfig withContextSwitch(long ns) {
    return new KernelConfig(tickNs, preemptibleKernel, ttwuQueue, llcSize, ns, idleExitNs, ttwuRunningNs,
        ttwuOnRqNs, ttwuFullNs, ipiSendNs, ipiExits, tickCostNs);
  }

  public KernelConfig withPreemptibleKernel(boolean preemptible) {
    return new KernelConfig(tickNs, preemptible, ttwuQueue, llcSize, contextSwitchNs, idleExitNs, ttwuRunningNs,
        ttwuOnRqNs, ttwuFullNs, ipiSendNs, ipiExits, tickCostNs);
  }

  public KernelConfig withTtwu(TtwuQueueMode mode, long running, long onRq, long full, long ipiSend, boolean exits) {
    return new KernelConfig(tickNs, preemptibleKernel, mode, llcSize, contextSwitchNs, idleExitNs, running, onRq,
        full, ipiSend, exits, tickCostNs);
  }

  public KernelConfig withIdleExit(long ns) {
    return new KernelConfig(tickNs, preemptibleKernel, ttwuQueue, llcSize, contextSwitchNs, ns, ttwuRunningNs,
        ttwuOnRqNs, ttwuFullNs, ipiSendNs, ipiExits, tickCostNs);
  }

  /** The same kernel ticking every {@code ns} (1e9 / CONFIG_HZ). */
  public KernelConfig withTickNs(long ns) {
    return new KernelConfig(ns, preemptibleKernel, ttwuQueue, llcSize, contextSwitchNs, idleExitNs, ttwuRunningNs,
        ttwuOnRqNs, ttwuFullNs, ipiSendNs, ipiExits, tickCostNs);
  }

  public KernelConfig withLlcSize(int cpus) {
    return new KernelConfig(tickNs, preemptibleKernel, ttwuQueue, cpus, contextSwitchNs, idleExitNs, ttwuRunningNs,
        ttwuOnRqNs, ttwuFullNs, ipiSendNs, ipiExits, tickCostNs);
  }
}

package org.lockvisor.locking.builtin;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;

import java.util.EnumSet;
import java.util.Set;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockCosts;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.locking.spi.LockStats;
import org.lockvisor.machine.Cpu;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.MachineTrace;
import org.lockvisor.machine.Op;
import org.lockvisor.machine.Task;
import org.lockvisor.machine.VcpuTask;

/**
 * What every built-in lock shares: identity, costs, the holder and its lock_stat bookkeeping,
 * the cache line of the lock word, and the spinlock API flavours (what {@code spin_lock_irqsave}
 * and friends disable around the arch lock).
 *
 * <p>Holder-preempted wait time is accounted at the lock: whenever the lock changes state or a
 * waiter re-evaluates its spin condition, the interval since the last update is charged once per
 * waiter if the holder's vCPU was preempted during it. Spinners on the lock word watch the
 * holder's CPU, so the holder's vCPU being preempted or resumed is such an update.
 */
abstract class BaseLock implements KernelLock {
  static final Set<LockMode> SPIN_MODES = EnumSet.of(LockMode.PLAIN, LockMode.IRQ, LockMode.IRQSAVE, LockMode.BH);

  final String name;
  final String algorithm;
  final Kernel kernel;
  final Machine machine;
  final Simulation sim;
  final LockCosts costs;
  final boolean vcpuCheck;
  final LockStats stats = new LockStats();
  private final Set<LockMode> modes;

  Task owner;
  long acquiredAt;
  /** The holder's CPU and its steal clock at acquisition (lock-holder preemption accounting). */
  private Cpu acquiredOn;
  private long acquiredSteal;
  /** Tasks waiting (spinning, queued, halted or sleeping) for this lock. */
  int waiters;
  private int lineCpu = -1;
  private boolean lastBounce;
  private long accountedAt;
  private boolean holderWasPreempted;

  BaseLock(String name, String algorithm, Kernel kernel, LockCosts costs, boolean vcpuCheck, Set<LockMode> modes) {
    checkArgument(name != null && !name.isBlank(), "lock needs a name");
    this.name = name;
    this.algorithm = algorithm;
    this.kernel = kernel;
    this.machine = kernel.machine();
    this.sim = machine.sim();
    this.costs = costs;
    this.vcpuCheck = vcpuCheck;
    this.modes = EnumSet.copyOf(modes);
  }

  @Override
  public final String name() {
    return name;
  }

  @Override
  public final String algorithm() {
    return algorithm;
  }

  @Override
  public final boolean supports(LockMode mode) {
    return modes.contains(mode);
  }

  @Override
  public Task owner() {
    return owner;
  }

  @Override
  public final LockStats stats() {
    return stats;
  }

  final void checkMode(LockMode mode) {
    checkArgument(modes.contains(mode), "lock [%s] (%s) does not support mode [%s]; supported: %s", name, algorithm,
        mode, modes);
  }

  final int sym(String symbol) {
    return machine.symbols().symbol(symbol, Machine.DOMAIN_KERNEL);
  }

  final int hypervisorSym(String symbol) {
    return machine.symbols().symbol(symbol, Machine.DOMAIN_HYPERVISOR);
  }

  final long now() {
    return sim.now();
  }

  // ---------------------------------------------------------------------------------------
  // The lock word's cache line.

  /** An RMW on the lock word by {@code t}: the atomic, plus a line transfer if another CPU owned it. */
  final long rmw(Task t) {
    return costs.atomicNs() + (touch(t) ? costs.lineTransferNs() : 0);
  }

  /** {@code t}'s CPU takes the line in exclusive state; true if it came from another CPU. */
  final boolean touch(Task t) {
    int c = t.cpu().id();
    lastBounce = lineCpu >= 0 && lineCpu != c;
    lineCpu = c;
    return lastBounce;
  }

  // ---------------------------------------------------------------------------------------
  // Holder bookkeeping and lock_stat.

  final void waiterArrived() {
    accountHolder();
    waiters++;
  }

  final void waiterLeft() {
    accountHolder();
    checkState(waiters > 0, "%s: waiter count underflow", name);
    waiters--;
  }

  /** {@code t} now holds the lock (exclusively); a contended acquirer must have left the waiters. */
  final void acquired(Task t, boolean contended, long waitStart) {
    accountHolder();
    owner = t;
    acquiredAt = now();
    acquiredOn = t.cpu();
    acquiredSteal = acquiredOn == null ? 0 : acquiredOn.stealClock();
    stats.acquired(contended, contended ? now() - waitStart : 0, lastBounce);
    if (MachineTrace.HOOKS && contended) {
      machine.trace().onLockWaited(t, name, waitStart, now());
    }
    holderWasPreempted = false;
  }

  /** A shared (reader) acquisition: statistics only, the owner stays the writer field. */
  final void acquiredShared(Task t, boolean contended, long waitStart) {
    stats.acquired(contended, contended ? now() - waitStart : 0, lastBounce);
    if (MachineTrace.HOOKS && contended) {
      machine.trace().onLockWaited(t, name, waitStart, now());
    }
  }

  /** The holder releases; hold time is recorded. */
  final void released(Task t) {
    checkState(owner == t, "%s: %s releases a lock held by %s", name, t, owner);
    accountHolder();
    stats.released(now() - acquiredAt);
    if (MachineTrace.HOOKS) {
      machine.trace().onLockHeld(t, name, acquiredAt, now());
    }
    // The steal clock of the holder's vCPU advanced by the time that vCPU was runnable but not
    // running on the host during the hold. A spinlock holder cannot migrate; a sleeping-lock
    // holder that moved to another vCPU is not counted (its old vCPU's steal is not its own).
    if (acquiredOn != null && t.cpu() == acquiredOn) {
      stats.holdPreempted(acquiredOn.stealClock() - acquiredSteal);
    }
    acquiredOn = null;
    owner = null;
    holderWasPreempted = false;
  }

  /** Charges the interval since the last update to holder-preempted wait time if it applies. */
  final void accountHolder() {
    long n = now();
    if (holderWasPreempted && waiters > 0 && n > accountedAt) {
      stats.holderPreemptedWait((n - accountedAt) * waiters);
    }
    accountedAt = n;
    holderWasPreempted = vcpuPreempted(owner);
  }

  /**
   * The true state (not what the guest is told): {@code t} is current on a vCPU whose thread has
   * been preempted on the host. Lock statistics use it; algorithms use {@link #vcpuIsPreempted}.
   */
  static boolean vcpuPreempted(Task t) {
    if (t == null || !t.onCpu()) {
      return false;
    }
    VcpuTask v = t.cpu().vcpuTask();
    return v != null && v.hostState() == VcpuTask.HostState.PREEMPTED;
  }

  /** The kernel's {@code vcpu_is_preempted(task_cpu(t))}, if this kernel has the check. */
  final boolean vcpuIsPreempted(Task t) {
    return vcpuCheck && t != null && kernel.vcpuIsPreempted(t.cpu());
  }

  /** The CPU a spinner watches for {@code t}'s on_cpu and vCPU state, or null. */
  static Cpu watchCpu(Task t) {
    return t == null ? null : t.cpu();
  }

  static boolean needResched(Task t) {
    return t.cpu().needResched();
  }

  // ---------------------------------------------------------------------------------------
  // Spinlock API flavours.

  /** spin_lock*: what the API disables before the arch lock. */
  static void enterMode(Task t, LockMode mode) {
    switch (mode) {
      case IRQ -> t.irqDisable();
      case IRQSAVE -> t.irqSave();
      default -> {}
    }
    t.preemptDisable();
  }

  /**
   * spin_unlock*: re-enables what {@link #enterMode} disabled (interrupts first, then the
   * preemption point). The calling op must return {@link Op#NEXT} right after.
   */
  static void exitMode(Task t, LockMode mode) {
    switch (mode) {
      case IRQ -> t.irqEnable();
      case IRQSAVE -> t.irqRestore();
      default -> {}
    }
    t.preemptEnable();
  }

  @Override
  public String toString() {
    return algorithm + ":" + name;
  }
}

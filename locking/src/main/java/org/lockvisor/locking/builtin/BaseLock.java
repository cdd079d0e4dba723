package org.lockvisor.locking.builtin;

import static com.google.common.base.Preconditions.checkState;

import java.util.EnumSet;
import java.util.Set;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockAccounting;
import org.lockvisor.locking.spi.LockContext;
import org.lockvisor.arch.spi.ArchCosts;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.locking.spi.LockStats;
import org.lockvisor.machine.Cpu;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.SharedLine;
import org.lockvisor.machine.Task;

/**
 * What every built-in lock shares: identity, costs, the holder, and the spinlock API flavours.
 * Bookkeeping is the framework's ({@link LockAccounting}, public to every plugin): the built-ins
 * report their exact acquisition points to it ({@link LockAccounting#reportedByLock()}), price
 * the lock word through the context's {@link SharedLine} (the machine's one cache-line model),
 * and ask the context for the kernel's {@code vcpu_is_preempted} check — the same public services a third-party lock uses.
 *
 * <p>Holder-preempted wait time is accounted at the lock: whenever the lock changes state or a
 * waiter re-evaluates its spin condition, the interval since the last update is charged once per
 * waiter if the holder's vCPU was preempted during it. Spinners on the lock word watch the
 * holder's CPU, so the holder's vCPU being preempted or resumed is such an update.
 */
abstract class BaseLock implements KernelLock {
  static final Set<LockMode> SPIN_MODES = LockMode.SPIN;

  final LockContext context;
  final String name;
  final String algorithm;
  final Kernel kernel;
  final Machine machine;
  final Simulation sim;
  final ArchCosts costs;
  final boolean vcpuCheck;
  final LockAccounting accounting;
  final LockStats stats;
  final SharedLine lockWord;
  private final Set<LockMode> modes;

  Task owner;

  BaseLock(LockContext context, String algorithm, Set<LockMode> modes) {
    this.context = context;
    this.name = context.name();
    this.algorithm = algorithm;
    this.kernel = context.kernel();
    this.machine = kernel.machine();
    this.sim = machine.sim();
    this.costs = context.costs();
    this.vcpuCheck = context.vcpuIsPreemptedCheck();
    this.accounting = context.accounting().reportedByLock();
    this.stats = accounting.stats();
    this.lockWord = context.lockWord();
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
    if (!modes.contains(mode)) { // not checkArgument: its varargs array would be made on every call
      throw new IllegalArgumentException(String.format(
          "lock [%s] (%s) does not support mode [%s]; supported: %s", name, algorithm, mode, modes));
    }
  }

  final int sym(String symbol) {
    return context.kernelSymbol(symbol);
  }

  final int hypervisorSym(String symbol) {
    return context.hypervisorSymbol(symbol);
  }

  final long now() {
    return sim.now();
  }

  // ---------------------------------------------------------------------------------------
  // The lock word's cache line.

  /** An RMW on the lock word by {@code t}: the atomic, plus a line transfer if another CPU owned it. */
  final long rmw(Task t) {
    return lockWord.rmw(t);
  }

  /**
   * {@code t}'s CPU takes the line in exclusive state (a store whose cost the caller's poke delay
   * already carries); true if it came from another CPU.
   */
  final boolean touch(Task t) {
    lockWord.store(t);
    return lockWord.lastMoved();
  }

  // ---------------------------------------------------------------------------------------
  // Holder bookkeeping, reported to the framework's accounting.

  final void waiterArrived() {
    accounting.waiterArrived();
  }

  final void waiterLeft() {
    accounting.waiterLeft();
  }

  /** {@code t} now holds the lock (exclusively); a contended acquirer must have left the waiters. */
  final void acquired(Task t, boolean contended, long waitStart) {
    owner = t;
    accounting.acquired(t, contended, waitStart);
  }

  /** A shared (reader) acquisition: statistics only, the owner stays the writer field. */
  final void acquiredShared(Task t, boolean contended, long waitStart) {
    accounting.acquiredShared(t, contended, waitStart);
  }

  /** The holder releases; hold time is recorded. */
  final void released(Task t) {
    checkState(owner == t, "%s: %s releases a lock held by %s", name, t, owner);
    accounting.released(t);
    owner = null;
  }

  /**
   * Whether {@code spin_trylock} of this lock fails now: the word is held. The queued locks
   * override it (a queued or spinning waiter also makes their word non-zero).
   */
  boolean trylockFails() {
    return owner != null;
  }

  /** Charges the interval since the last update to holder-preempted wait time if it applies. */
  final void accountHolder() {
    accounting.accountHolder();
  }

  /** The true state (not what the guest is told): {@code t}'s vCPU is preempted on the host. */
  static boolean vcpuPreempted(Task t) {
    return LockAccounting.vcpuPreempted(t);
  }

  /** The kernel's {@code vcpu_is_preempted(task_cpu(t))}, if this kernel has the check. */
  final boolean vcpuIsPreempted(Task t) {
    return context.vcpuIsPreempted(t);
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
    mode.enter(t);
  }

  /** spin_unlock*: re-enables what {@link #enterMode} disabled. */
  static void exitMode(Task t, LockMode mode) {
    mode.exit(t);
  }

  @Override
  public String toString() {
    return algorithm + ":" + name;
  }
}

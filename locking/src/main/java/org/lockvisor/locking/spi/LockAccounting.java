package org.lockvisor.locking.spi;

import static com.google.common.base.Preconditions.checkState;

import java.util.Arrays;
import org.lockvisor.machine.Cpu;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.MachineTrace;
import org.lockvisor.machine.SharedLine;
import org.lockvisor.machine.Task;
import org.lockvisor.machine.VcpuTask;

/**
 * The framework's bookkeeping of one lock instance: lock_stat and {@code perf lock contention}
 * figures (acquisitions, contentions, bounces, wait and hold times), lock-holder preemption
 * (wait time spent while the holder's vCPU was preempted, holds during which it was), the
 * Perfetto lock-hold and lock-wait tracks, and the algorithm's own events (halts, kicks, sleeps,
 * confers...).
 *
 * <p>Every lock gets it without a line of code: unless the lock {@linkplain #reportedByLock()
 * takes over}, the framework measures at the boundaries of the lock's ops (always-on
 * instrumentation): a task arrives when its lock op starts, is contended if the lock was held or
 * had waiters then, and holds the lock from the end of its lock op to the start of its unlock op.
 * Holder-preempted wait is then integrated exactly from the holder vCPU's steal clock (KVM steal
 * time: runnable but not running on the host) between those boundaries, times the waiters.
 *
 * <p>A lock that knows its exact acquisition points (the built-ins: a ticket is taken at the
 * {@code xadd}, a mutex handed off at unlock) calls {@link #reportedByLock()} in its constructor
 * and reports {@link #waiterArrived()}, {@link #acquired}, {@link #released} itself; the
 * holder-preempted wait is then charged per interval between the lock's updates, the lock
 * calling {@link #accountHolder()} when a spinner re-evaluates (spinners watch the holder's CPU,
 * so the holder's vCPU being preempted or resumed is such an update).
 */
public final class LockAccounting {
  private final String name;
  private final Machine machine;
  private final SharedLine lockWord;
  private final LockStats stats = new LockStats();
  private boolean reportedByLock;

  private Task holder;
  private long acquiredAt;
  private Cpu acquiredOn;
  private long acquiredSteal;
  /** The holder's interrupt clock ({@link Task#interruptNs}) when it took the lock. */
  private long acquiredIrq;
  private int waiters;
  // reported mode: the interval since the last update is charged if the holder was preempted
  private long accountedAt;
  private boolean holderWasPreempted;
  // instrumented mode: per-task arrival, and the steal clock of the holder's CPU at the last update
  private long[] arrivedAt = new long[64];
  private boolean[] contended = new boolean[64];
  private int readers;
  private Cpu markCpu;
  private long markSteal;

  LockAccounting(String name, Machine machine, SharedLine lockWord) {
    this.name = name;
    this.machine = machine;
    this.lockWord = lockWord;
  }

  /** The lock_stat figures of this lock. */
  public LockStats stats() {
    return stats;
  }

  /**
   * The lock reports its acquisitions, releases and waiters itself; the framework stops measuring
   * at the op boundaries. Call it in the lock's constructor. Returns this.
   */
  public LockAccounting reportedByLock() {
    reportedByLock = true;
    return this;
  }

  /** A report from a lock the framework instruments would count everything twice. */
  private void checkReported() {
    checkState(reportedByLock, "%s: the lock reports an acquisition point but did not call reportedByLock();"
        + " the framework already measures locks at their op boundaries", name);
  }

  /** Whether the lock reports itself ({@link #reportedByLock()}). */
  public boolean isReportedByLock() {
    return reportedByLock;
  }

  /** Tasks currently waiting (spinning, queued, halted or sleeping) for the lock. */
  public int waiters() {
    return waiters;
  }

  /** The exclusive holder as accounted, or null. */
  public Task holder() {
    return holder;
  }

  // ---------------------------------------------------------------------------------------
  // The algorithm's own events (any lock, either mode).

  /** A waiter halted its vCPU (pv_wait). */
  public void halted() {
    stats.halted();
  }

  /** An unlocker kicked a halted waiter's vCPU (pv_kick). */
  public void kicked() {
    stats.kicked();
  }

  /** A waiter went to sleep. */
  public void slept() {
    stats.slept();
  }

  /** A waiter gave up spinning (need_resched, preempted owner, budget). */
  public void spinBailout() {
    stats.spinBailout();
  }

  /** A sleeping lock taken by optimistic spinning. */
  public void spinAcquired() {
    stats.spinAcquired();
  }

  /** Ownership handed directly to a waiter. */
  public void handedOff() {
    stats.handedOff();
  }

  /** A waiter conferred its cycles to the holder's vCPU. */
  public void conferred() {
    stats.conferred();
  }

  /** The lock was passed to {@code next}; counted if its vCPU is preempted (lock-waiter preemption). */
  public void handoffTo(Task next) {
    if (vcpuPreempted(next)) {
      stats.handoffToPreemptedWaiter();
    }
  }

  // ---------------------------------------------------------------------------------------
  // Reports of a lock that took over (reportedByLock).

  public void waiterArrived() {
    checkReported();
    accountHolder();
    waiters++;
  }

  public void waiterLeft() {
    checkReported();
    accountHolder();
    checkState(waiters > 0, "%s: waiter count underflow", name);
    waiters--;
  }

  /** {@code t} now holds the lock exclusively; a contended acquirer must have left the waiters. */
  public void acquired(Task t, boolean contended, long waitStart) {
    checkReported();
    accountHolder();
    long now = machine.now();
    holder = t;
    acquiredAt = now;
    acquiredOn = t.cpu();
    acquiredSteal = acquiredOn == null ? 0 : acquiredOn.stealClock();
    acquiredIrq = t.interruptNs();
    stats.acquired(contended, contended ? now - waitStart : 0, lockWord.lastMoved());
    waited(t, contended, waitStart, now);
    holderWasPreempted = false;
  }

  /** A shared (reader) acquisition by {@code t}. */
  public void acquiredShared(Task t, boolean contended, long waitStart) {
    checkReported();
    long now = machine.now();
    stats.acquiredShared(contended, contended ? now - waitStart : 0, lockWord.lastMoved());
    waited(t, contended, waitStart, now);
  }

  /** The trace's lock-wait slice of a contended acquisition. */
  private void waited(Task t, boolean contended, long waitStart, long now) {
    if (MachineTrace.HOOKS && contended) {
      machine.trace().onLockWaited(t, name, waitStart, now);
    }
  }

  /** The exclusive holder {@code t} releases: hold time, holder preemption during the hold, trace. */
  public void released(Task t) {
    checkReported();
    checkState(holder == t, "%s: %s releases a lock held by %s", name, t, holder);
    accountHolder();
    endHold(t, acquiredAt, false);
    // A spinlock holder cannot migrate; a sleeping-lock holder that moved to another vCPU is not
    // counted (its old vCPU's steal is not its own).
    if (acquiredOn != null && t.cpu() == acquiredOn) {
      stats.holdPreempted(acquiredOn.stealClock() - acquiredSteal);
    }
    // interrupts taken while holding (the holder keeps irqs enabled) lengthen the hold
    stats.holdInterrupted(t.interruptNs() - acquiredIrq);
    acquiredOn = null;
    holder = null;
    holderWasPreempted = false;
  }

  /** A reader that acquired at {@code readerAcquiredAt} releases: hold time and trace. */
  public void releasedShared(Task t, long readerAcquiredAt) {
    endHold(t, readerAcquiredAt, true);
  }

  private void endHold(Task t, long since, boolean shared) {
    long now = machine.now();
    if (shared) {
      stats.releasedShared(now - since);
    } else {
      stats.released(now - since);
    }
    if (MachineTrace.HOOKS) {
      machine.trace().onLockHeld(t, name, since, now);
    }
  }

  /** Charges the interval since the last update to holder-preempted wait time if it applies. */
  public void accountHolder() {
    long n = machine.now();
    if (holderWasPreempted && waiters > 0 && n > accountedAt) {
      stats.holderPreemptedWait((n - accountedAt) * waiters);
    }
    accountedAt = n;
    holderWasPreempted = vcpuPreempted(holder);
  }

  /**
   * The true state (not what the guest is told): {@code t} is current on a vCPU whose thread has
   * been preempted on the host. Statistics use it; algorithms use {@link LockContext#vcpuIsPreempted}.
   */
  public static boolean vcpuPreempted(Task t) {
    if (t == null || !t.onCpu()) {
      return false;
    }
    VcpuTask v = t.cpu().vcpuTask();
    return v != null && v.hostState() == VcpuTask.HostState.PREEMPTED;
  }

  // ---------------------------------------------------------------------------------------
  // Instrumentation at the op boundaries (locks that do not report themselves).

  private void grow(int id) {
    if (id >= arrivedAt.length) {
      int n = Math.max(id + 1, arrivedAt.length * 2);
      arrivedAt = Arrays.copyOf(arrivedAt, n);
      contended = Arrays.copyOf(contended, n);
    }
  }

  /**
   * The lock op of {@code t} starts; {@code busy}: the lock itself reports an owner (or readers
   * for an exclusive request). Contended if it is busy, held or has waiters.
   */
  void opArrived(Task t, boolean shared, boolean busy) {
    grow(t.id());
    boolean c = busy || holder != null || waiters > 0 || (!shared && readers > 0);
    arrivedAt[t.id()] = machine.now();
    contended[t.id()] = c;
    if (c) {
      integrateHolderPreemption();
      waiters++;
    }
  }

  /** The lock op of {@code t} finished: {@code t} holds the lock. */
  void opAcquired(Task t, boolean shared) {
    boolean c = contended[t.id()];
    if (c) {
      integrateHolderPreemption();
      waiters = Math.max(0, waiters - 1);
    }
    long now = machine.now();
    waited(t, c, arrivedAt[t.id()], now);
    if (shared) {
      readers++;
      stats.acquiredShared(c, c ? now - arrivedAt[t.id()] : 0, lockWord.lastMoved());
      arrivedAt[t.id()] = now; // the reader's hold starts
      return;
    }
    holder = t;
    acquiredAt = now;
    acquiredOn = t.cpu();
    acquiredSteal = acquiredOn == null ? 0 : acquiredOn.stealClock();
    acquiredIrq = t.interruptNs();
    stats.acquired(c, c ? now - arrivedAt[t.id()] : 0, lockWord.lastMoved());
    markCpu = acquiredOn;
    markSteal = acquiredSteal;
  }

  /** The unlock op of {@code t} starts. */
  void opReleasing(Task t, boolean shared) {
    if (shared) {
      readers = Math.max(0, readers - 1);
      endHold(t, arrivedAt[t.id()], true);
      return;
    }
    if (holder != t) {
      return; // a lock released by another task than the one that took it: not attributable
    }
    integrateHolderPreemption();
    endHold(t, acquiredAt, false);
    if (acquiredOn != null && t.cpu() == acquiredOn) {
      stats.holdPreempted(acquiredOn.stealClock() - acquiredSteal);
    }
    // interrupts taken while holding (the holder keeps irqs enabled) lengthen the hold
    stats.holdInterrupted(t.interruptNs() - acquiredIrq);
    holder = null;
    acquiredOn = null;
    markCpu = null;
  }

  /**
   * Charges waiters × the steal time of the holder's CPU since the last update (the holder was
   * current there at both ends: a spinlock holder cannot leave its CPU), then moves the mark.
   */
  private void integrateHolderPreemption() {
    Cpu now = holder != null && holder.onCpu() ? holder.cpu() : null;
    if (now != null && now == markCpu && waiters > 0) {
      long steal = now.stealClock() - markSteal;
      if (steal > 0) {
        stats.holderPreemptedWait(steal * waiters);
      }
    }
    markCpu = now;
    markSteal = now == null ? 0 : now.stealClock();
  }
}

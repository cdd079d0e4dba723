package org.lockvisor.locking.spi;

/**
 * Statistics of one lock instance, with the columns of {@code /proc/lock_stat} and
 * {@code perf lock contention}, plus what no real tool can give: wait time spent while the
 * holder's vCPU was preempted (lock-holder preemption) and hand-offs to a waiter whose vCPU was
 * preempted (lock-waiter preemption).
 *
 * <p>Like lockdep's {@code struct lock_class_stats} (kernel/locking/lockdep.c, 4.8: {@code
 * read_waittime}/{@code write_waittime}, {@code read_holdtime}/{@code write_holdtime} and the
 * read/write bounce counters), the totals are also kept per side: {@link #reads()} for shared
 * acquisitions (read_lock, down_read) and {@link #writes()} for the others, so lock_stat can print
 * an rwlock's or rwsem's {@code -R} and {@code -W} lines.
 *
 * <p>Above 30 methods on purpose: it is a set of counters, lock_stat's fields and the model's
 * virtualization counters, each with its one recording method (called by the framework or a
 * plugin where the event happens) and its one read-out; grouping them behind more objects would
 * only lengthen every plugin's call.
 */
public final class LockStats {
  /** The shared side (null in a side itself). */
  private final LockStats reads;
  /** The exclusive side (null in a side itself). */
  private final LockStats writes;
  private long acquisitions;
  private long contentions;
  private long conBounces;
  private long acqBounces;
  private long waitTotal;
  private long waitMin = Long.MAX_VALUE;
  private long waitMax;
  private long holdTotal;
  private long holdMin = Long.MAX_VALUE;
  private long holdMax;
  private long holderPreemptedWaitNs;
  private long preemptedHolds;
  private long holdPreemptedNs;
  private long handoffsToPreemptedWaiter;
  private long sleeps;
  private long halts;
  private long kicks;
  private long spinBailouts;
  private long spinAcquisitions;
  private long handoffs;
  private long confers;
  private long ownerSpins;
  private long ownerSpinNs;
  private long wakeupsLeftToSpinner;
  private long interruptedHolds;
  private long holdInterruptNs;
  private long osqHandoffs;
  private long osqHandoffsToUndispatched;
  /**
   * Spin episodes by how they ended ({@link SpinEnd}) and length ({@link #SPIN_BUCKETS} decades
   * from 1 us), then the total ns of each end: allocated at this lock's first episode, never per
   * event.
   */
  private long[] spinEpisodes;

  /**
   * How an optimistic spin episode ended (issue 37): an OSQ member handed the OSQ by its
   * predecessor ({@code osq_unlock} setting {@code node->locked}), any spinner leaving on {@code
   * need_resched()}, an OSQ head whose owner changed ({@code mutex_spin_on_owner} / {@code
   * rwsem_spin_on_owner}: {@code lock->owner != owner}), or anything else (the owner off its CPU or
   * its vCPU preempted, the OSQ predecessor's vCPU preempted).
   */
  public enum SpinEnd {
    HANDOFF, NEED_RESCHED, OWNER_CHANGE, OTHER
  }

  /** Length classes of spin episodes: below 1 us, 1-10 us, ..., 1-10 ms, 10 ms and more. */
  public static final int SPIN_BUCKETS = 6;

  public LockStats() {
    this(true);
  }

  private LockStats(boolean withSides) {
    this.reads = withSides ? new LockStats(false) : null;
    this.writes = withSides ? new LockStats(false) : null;
  }

  /** Statistics of the shared acquisitions (read_lock, down_read); null for a side itself. */
  public LockStats reads() {
    return reads;
  }

  /** Statistics of the exclusive acquisitions; null for a side itself. */
  public LockStats writes() {
    return writes;
  }

  /** An exclusive acquisition; {@code waitNs} > 0 or {@code contended} marks a contended one. */
  public void acquired(boolean contended, long waitNs, boolean bounced) {
    count(contended, waitNs, bounced);
    if (writes != null) {
      writes.count(contended, waitNs, bounced);
    }
  }

  /** A shared (reader) acquisition. */
  public void acquiredShared(boolean contended, long waitNs, boolean bounced) {
    count(contended, waitNs, bounced);
    if (reads != null) {
      reads.count(contended, waitNs, bounced);
    }
  }

  /** The end of an exclusive hold. */
  public void released(long holdNs) {
    hold(holdNs);
    if (writes != null) {
      writes.hold(holdNs);
    }
  }

  /** The end of a shared hold. */
  public void releasedShared(long holdNs) {
    hold(holdNs);
    if (reads != null) {
      reads.hold(holdNs);
    }
  }

  private void count(boolean contended, long waitNs, boolean bounced) {
    acquisitions++;
    if (bounced) {
      acqBounces++;
    }
    if (contended) {
      contentions++;
      if (bounced) {
        conBounces++;
      }
      waitTotal += waitNs;
      waitMin = Math.min(waitMin, waitNs);
      waitMax = Math.max(waitMax, waitNs);
    }
  }

  private void hold(long holdNs) {
    holdTotal += holdNs;
    holdMin = Math.min(holdMin, holdNs);
    holdMax = Math.max(holdMax, holdNs);
  }

  /**
   * A hold during which the holder's vCPU was off its physical CPU for {@code ns} in total
   * (lock-holder preemption), counted once per hold.
   */
  public void holdPreempted(long ns) {
    if (ns > 0) {
      preemptedHolds++;
      holdPreemptedNs += ns;
    }
  }

  /** Holds during which the holder's vCPU was preempted by the host (lock-holder preemptions). */
  public long preemptedHolds() {
    return preemptedHolds;
  }

  /** Total time holders spent holding the lock while their vCPU was preempted. */
  public long holdPreemptedNs() {
    return holdPreemptedNs;
  }

  public void holderPreemptedWait(long ns) {
    holderPreemptedWaitNs += ns;
  }

  public void handoffToPreemptedWaiter() {
    handoffsToPreemptedWaiter++;
  }

  public void slept() {
    sleeps++;
  }

  public void halted() {
    halts++;
  }

  public void kicked() {
    kicks++;
  }

  public void spinBailout() {
    spinBailouts++;
  }

  /** A sleeping lock taken by optimistic spinning (without sleeping), possibly a steal. */
  public void spinAcquired() {
    spinAcquisitions++;
  }

  /**
   * An optimistic spinner at the head of the OSQ spun on the owner ({@code mutex_spin_on_owner},
   * {@code rwsem_spin_on_owner}) for {@code ns}: the heads' share of the spin, beside the queue
   * members' time in {@code osq_lock}.
   */
  public void ownerSpun(long ns) {
    ownerSpins++;
    ownerSpinNs += ns;
  }

  /**
   * An unlock skipped its wakeup because a spinner exists and wait_lock was busy ({@code
   * rwsem_wake}'s {@code rwsem_has_spinner} trylock shortcut).
   */
  public void wakeupLeftToSpinner() {
    wakeupsLeftToSpinner++;
  }

  /** A waiter gave its cycles to the holder's vCPU (H_CONFER, directed yield). */
  public void conferred() {
    confers++;
  }

  /** Ownership handed directly to a waiter (mutex HANDOFF, rwsem reader grant). */
  public void handedOff() {
    handoffs++;
  }

  public long acquisitions() {
    return acquisitions;
  }

  public long contentions() {
    return contentions;
  }

  public long conBounces() {
    return conBounces;
  }

  public long acqBounces() {
    return acqBounces;
  }

  public long waitTotalNs() {
    return waitTotal;
  }

  public long waitMinNs() {
    return contentions == 0 ? 0 : waitMin;
  }

  public long waitMaxNs() {
    return waitMax;
  }

  public double waitAvgNs() {
    return contentions == 0 ? 0 : (double) waitTotal / contentions;
  }

  public long holdTotalNs() {
    return holdTotal;
  }

  public long holdMinNs() {
    return acquisitions == 0 || holdMin == Long.MAX_VALUE ? 0 : holdMin;
  }

  public long holdMaxNs() {
    return holdMax;
  }

  public double holdAvgNs() {
    return acquisitions == 0 ? 0 : (double) holdTotal / acquisitions;
  }

  public long holderPreemptedWaitNs() {
    return holderPreemptedWaitNs;
  }

  public long handoffsToPreemptedWaiter() {
    return handoffsToPreemptedWaiter;
  }

  public long sleeps() {
    return sleeps;
  }

  public long halts() {
    return halts;
  }

  public long kicks() {
    return kicks;
  }

  public long spinBailouts() {
    return spinBailouts;
  }

  public long spinAcquisitions() {
    return spinAcquisitions;
  }

  public long handoffs() {
    return handoffs;
  }

  public long confers() {
    return confers;
  }

  /** Spins of an OSQ head on the owner (see {@link #ownerSpun}). */
  public long ownerSpins() {
    return ownerSpins;
  }

  /** Time the OSQ heads spent spinning on the owner. */
  public long ownerSpinNs() {
    return ownerSpinNs;
  }

  /** Unlocks that left the wakeup to a spinner (see {@link #wakeupLeftToSpinner}). */
  public long wakeupsLeftToSpinner() {
    return wakeupsLeftToSpinner;
  }

  /**
   * An exclusive hold during which interrupt handlers ran on the holder for {@code ns} in total
   * (the decrementer's timer_interrupt, IPIs): they lengthen the hold, counted once per hold.
   */
  public void holdInterrupted(long ns) {
    if (ns > 0) {
      interruptedHolds++;
      holdInterruptNs += ns;
    }
  }

  /** Exclusive holds during which an interrupt ran on the holder. */
  public long interruptedHolds() {
    return interruptedHolds;
  }

  /** Interrupt time inside exclusive holds. */
  public long holdInterruptNs() {
    return holdInterruptNs;
  }

  /**
   * An OSQ hand-off ({@code osq_unlock} to a queued successor); {@code undispatched}: the
   * successor's vCPU was not running on a physical processor, so the OSQ waits for its dispatch.
   */
  public void osqHandoff(boolean undispatched) {
    osqHandoffs++;
    if (undispatched) {
      osqHandoffsToUndispatched++;
    }
  }

  /** A spin episode of {@code ns} that ended as {@code end} (see {@link SpinEnd}). */
  public void spinEpisode(SpinEnd end, long ns) {
    if (spinEpisodes == null) {
      spinEpisodes = new long[SpinEnd.values().length * (SPIN_BUCKETS + 1)];
    }
    int row = end.ordinal() * (SPIN_BUCKETS + 1);
    spinEpisodes[row + spinBucket(ns)]++;
    spinEpisodes[row + SPIN_BUCKETS] += ns;
  }

  /** The length class of an episode of {@code ns}: 0 below 1 us, then one per decade, the last open. */
  public static int spinBucket(long ns) {
    int b = 0;
    for (long limit = 1_000; b < SPIN_BUCKETS - 1 && ns >= limit; limit *= 10) {
      b++;
    }
    return b;
  }

  public long osqHandoffs() {
    return osqHandoffs;
  }

  public long osqHandoffsToUndispatched() {
    return osqHandoffsToUndispatched;
  }

  /** Spin episodes that ended as {@code end} with a length in class {@code bucket}. */
  public long spinEpisodes(SpinEnd end, int bucket) {
    return spinEpisodes == null ? 0 : spinEpisodes[end.ordinal() * (SPIN_BUCKETS + 1) + bucket];
  }

  /** Time spent in spin episodes that ended as {@code end}. */
  public long spinEpisodeNs(SpinEnd end) {
    return spinEpisodes == null ? 0 : spinEpisodes[end.ordinal() * (SPIN_BUCKETS + 1) + SPIN_BUCKETS];
  }

  /** Forgets everything (end of warm-up). */
  public void reset() {
    acquisitions = contentions = conBounces = acqBounces = 0;
    waitTotal = waitMax = holdTotal = holdMax = 0;
    waitMin = holdMin = Long.MAX_VALUE;
    holderPreemptedWaitNs = handoffsToPreemptedWaiter = sleeps = halts = kicks = spinBailouts = 0;
    spinAcquisitions = handoffs = confers = 0;
    ownerSpins = ownerSpinNs = wakeupsLeftToSpinner = 0;
    preemptedHolds = holdPreemptedNs = 0;
    osqHandoffs = osqHandoffsToUndispatched = 0;
    interruptedHolds = holdInterruptNs = 0;
    if (spinEpisodes != null) {
      java.util.Arrays.fill(spinEpisodes, 0);
    }
    if (reads != null) {
      reads.reset();
      writes.reset();
    }
  }
}

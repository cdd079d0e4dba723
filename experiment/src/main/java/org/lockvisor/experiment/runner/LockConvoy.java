package org.lockvisor.experiment.runner;

import com.google.common.collect.ImmutableList;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockStats;
import org.lockvisor.locking.spi.LockStats.SpinEnd;

/**
 * The convoy diagnosis of one lock instance (issue 37): how busy it is (acquisitions against hold
 * time), how many tasks wait on it on average (Little's law: total contended wait over the
 * window), how its OSQ hands off (the share of {@code osq_unlock} hand-offs to a successor whose
 * vCPU is not dispatched, so the queue stalls until PHYP or the host runs it), and how its
 * optimistic spin episodes end and how long they last ({@link LockStats.SpinEnd}), so a band miss
 * can be traced to queue formation (many waiters, hand-offs into undispatched vCPUs) or to
 * residence (long holds, owner spinning). Counted by {@link LockStats} without allocation per
 * event; one record per lock that had a spin episode or an OSQ hand-off.
 *
 * @param lock the lock instance's name (e.g. {@code file1.i_mmap_rwsem})
 * @param windowNs the measurement window the counts cover
 * @param interruptedHolds exclusive holds during which an interrupt ran on the holder
 * @param holdInterruptNs the interrupt time inside those holds
 * @param episodes spin episodes by end ({@link SpinEnd} ordinal) and length class ({@link
 *     LockStats#SPIN_BUCKETS}: below 1 us, 1-10 us, 10-100 us, 0.1-1 ms, 1-10 ms, 10 ms and more)
 * @param episodeNs total spin time by end
 */
public record LockConvoy(String lock, long windowNs, long acquisitions, long holdTotalNs, long contentions,
    long waitTotalNs, long osqHandoffs, long osqHandoffsToUndispatched, long preemptedHolds, long holdPreemptedNs,
    long interruptedHolds, long holdInterruptNs, ImmutableList<ImmutableList<Long>> episodes, ImmutableList<Long> episodeNs) {

  /** Bucket labels of {@link #episodes}' columns. */
  public static final List<String> BUCKETS = List.of("<1us", "1-10us", "10-100us", "0.1-1ms", "1-10ms", ">=10ms");

  /** The diagnosis of every lock of {@code locks} that had a spin episode or an OSQ hand-off, most spin time first. */
  public static List<LockConvoy> of(List<KernelLock> locks, long windowNs) {
    List<LockConvoy> out = new ArrayList<>();
    for (KernelLock l : locks) {
      LockStats s = l.stats();
      List<ImmutableList<Long>> rows = new ArrayList<>();
      List<Long> ns = new ArrayList<>();
      long any = s.osqHandoffs();
      for (SpinEnd e : SpinEnd.values()) {
        List<Long> row = new ArrayList<>();
        for (int b = 0; b < LockStats.SPIN_BUCKETS; b++) {
          row.add(s.spinEpisodes(e, b));
          any += s.spinEpisodes(e, b);
        }
        rows.add(ImmutableList.copyOf(row));
        ns.add(s.spinEpisodeNs(e));
      }
      if (any == 0) {
        continue;
      }
      out.add(new LockConvoy(l.name(), windowNs, s.acquisitions(), s.holdTotalNs(), s.contentions(),
          s.waitTotalNs(), s.osqHandoffs(), s.osqHandoffsToUndispatched(), s.preemptedHolds(), s.holdPreemptedNs(),
          s.interruptedHolds(), s.holdInterruptNs(),
          ImmutableList.copyOf(rows), ImmutableList.copyOf(ns)));
    }
    out.sort(Comparator.comparingLong(LockConvoy::spinNs).reversed().thenComparing(LockConvoy::lock));
    return out;
  }

  /** Time spent in spin episodes of this lock, every end together. */
  public long spinNs() {
    return episodeNs.stream().mapToLong(Long::longValue).sum();
  }

  /** Episodes that ended as {@code end}, every length. */
  public long episodes(SpinEnd end) {
    return episodes.get(end.ordinal()).stream().mapToLong(Long::longValue).sum();
  }

  /** Acquisitions per second of the window. */
  public double acquisitionsPerSecond() {
    return windowNs > 0 ? acquisitions * 1e9 / windowNs : 0;
  }

  /** Mean hold time (ns). */
  public double holdMeanNs() {
    return acquisitions > 0 ? (double) holdTotalNs / acquisitions : 0;
  }

  /** The share of the window the lock was held (acquisitions/s x mean hold; shared holds add up). */
  public double heldShare() {
    return windowNs > 0 ? (double) holdTotalNs / windowNs : 0;
  }

  /** Mean number of waiters (Little's law: contended wait time over the window). */
  public double meanWaiters() {
    return windowNs > 0 ? (double) waitTotalNs / windowNs : 0;
  }

  /** The share of OSQ hand-offs to a successor whose vCPU was not dispatched. */
  public double undispatchedHandoffShare() {
    return osqHandoffs > 0 ? (double) osqHandoffsToUndispatched / osqHandoffs : 0;
  }

  /** The share of holds during which an interrupt ran on the holder. */
  public double interruptedShare() {
    return acquisitions > 0 ? (double) interruptedHolds / acquisitions : 0;
  }

  /** The share of holds during which the holder's vCPU was preempted (lock_stat cannot see it). */
  public double ownerPreemptedShare() {
    return acquisitions > 0 ? (double) preemptedHolds / acquisitions : 0;
  }
}

package org.lockvisor.locking.spi;

import org.lockvisor.machine.Task;

/**
 * One cache line of a lock (the lock word, a queue node's flag) and the CPU that last wrote it:
 * an atomic or a store on it costs the atomic itself plus, when the line was last written by
 * another CPU, one cache-line transfer (MESI: the line moves in exclusive state). lock_stat's
 * {@code con-bounces}/{@code acq-bounces} count acquisitions whose RMW moved the line.
 *
 * <p>Allocation-free; a lock keeps its lines for its lifetime ({@link LockContext#lockWord()} is
 * the lock word the framework's accounting reads bounces from, {@link LockContext#newCacheLine()}
 * any further line).
 */
public final class CacheLine {
  private final LockCosts costs;
  private int lastWriter = -1;
  private boolean lastMoved;

  CacheLine(LockCosts costs) {
    this.costs = costs;
  }

  /** An atomic RMW by {@code t}'s CPU: the atomic, plus a transfer if another CPU wrote the line last. */
  public long rmw(Task t) {
    return costs.atomicNs() + (touch(t) ? costs.lineTransferNs() : 0);
  }

  /** A plain store by {@code t}'s CPU (the unlock of a ticket or qspinlock): the transfer only. */
  public long store(Task t) {
    return touch(t) ? costs.lineTransferNs() : 0;
  }

  /** {@code t}'s CPU takes the line in exclusive state; true if it came from another CPU. */
  public boolean touch(Task t) {
    int c = t.cpu().id();
    lastMoved = lastWriter >= 0 && lastWriter != c;
    lastWriter = c;
    return lastMoved;
  }

  /** Whether the last write moved the line from another CPU (a bounce). */
  public boolean lastMoved() {
    return lastMoved;
  }

  /** The id of the CPU that wrote the line last, or -1. */
  public int lastWriter() {
    return lastWriter;
  }
}

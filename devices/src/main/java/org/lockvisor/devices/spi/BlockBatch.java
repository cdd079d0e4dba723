package org.lockvisor.devices.spi;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;

/**
 * The requests of one plug (one {@code io_submit} call, or one block-layer worker run), dispatched
 * in order. Reusable: a submitter keeps one batch and refills it, so dispatch allocates nothing.
 */
public final class BlockBatch {
  private final BlockRequest[] requests;
  private int size;
  private int next;
  private int flushEnd = -1;

  public BlockBatch(int capacity) {
    checkArgument(capacity > 0, "capacity must be positive: %s", capacity);
    this.requests = new BlockRequest[capacity];
  }

  /** Empties the batch for refilling. */
  public void clear() {
    for (int i = 0; i < size; i++) {
      requests[i] = null;
    }
    size = 0;
    next = 0;
    flushEnd = -1;
  }

  public void add(BlockRequest r) {
    checkState(size < requests.length, "batch full at %s requests", size);
    requests[size++] = r;
  }

  public int size() {
    return size;
  }

  public int capacity() {
    return requests.length;
  }

  public boolean hasNext() {
    return next < size;
  }

  /** The request being dispatched. */
  public BlockRequest current() {
    checkState(next < size, "no current request (%s of %s dispatched)", next, size);
    return requests[next];
  }

  /**
   * Whether the current request is the last of the batch, or of the part of it flushed so far
   * (the block layer's REQ_END / bd->last): see {@link #flushUpTo}.
   */
  public boolean isLast() {
    return next == (flushEnd < 0 ? size : flushEnd) - 1;
  }

  /**
   * For devices: only the requests before index {@code end} are dispatched now (a submitter that
   * must sleep for a tag flushes its plug first); {@link #isLast} marks request {@code end - 1}.
   */
  public void flushUpTo(int end) {
    checkArgument(end > next && end <= size, "flush end %s outside (%s, %s]", end, next, size);
    flushEnd = end;
  }

  /** Exclusive end of the current flush, or -1 before any {@link #flushUpTo} (the whole batch). */
  public int flushEnd() {
    return flushEnd;
  }

  /** Index of the current request. */
  public int position() {
    return next;
  }

  /** Moves on to the next request. */
  public void advance() {
    next++;
  }

  /** Requests not yet dispatched, from the current one on (for parking them). */
  public BlockRequest remaining(int i) {
    return requests[next + i];
  }

  public int remainingCount() {
    return size - next;
  }

  /** Marks every remaining request as handled (parked elsewhere). */
  public void skipRest() {
    next = size;
  }
}

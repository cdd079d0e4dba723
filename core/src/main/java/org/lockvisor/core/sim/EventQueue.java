package org.lockvisor.core.sim;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.Arrays;

/**
 * The future-event set: an indexed 4-ary min-heap ordered by (time, insertion sequence).
 *
 * <p>Ties on time are broken by insertion order, so a run is a pure function of its inputs.
 * Events live in slots of parallel primitive arrays; the heap holds the keys inline (time and
 * sequence) so that sifting touches only contiguous {@code long[]}s. Cancellation is exact
 * (the event is removed from the heap) through a handle that encodes the slot and a generation,
 * so a stale handle can never cancel a later event that reused the slot. Nothing is allocated
 * per event once the arrays have grown to the peak number of pending events.
 */
public final class EventQueue {

  /** A handle that refers to no event; {@link #cancel(long)} ignores it. */
  public static final long NO_EVENT = -1L;

  // Heap, keys inline.
  private long[] heapTime;
  private long[] heapSeq;
  private int[] heapSlot;
  private int size;

  // Slots.
  private EventHandler[] handler;
  private int[] kind;
  private long[] arg;
  private int[] generation;
  private int[] position; // heap index of a slot, -1 when free
  private int[] freeSlots;
  private int freeCount;
  private int slotsUsed;

  private long nextSeq;

  // The last popped event (avoids allocating a result object).
  private long poppedTime;
  private EventHandler poppedHandler;
  private int poppedKind;
  private long poppedArg;

  public EventQueue() {
    this(256);
  }

  public EventQueue(int initialCapacity) {
    checkArgument(initialCapacity > 0, "initialCapacity must be positive: %s", initialCapacity);
    heapTime = new long[initialCapacity];
    heapSeq = new long[initialCapacity];
    heapSlot = new int[initialCapacity];
    handler = new EventHandler[initialCapacity];
    kind = new int[initialCapacity];
    arg = new long[initialCapacity];
    generation = new int[initialCapacity];
    position = new int[initialCapacity];
    Arrays.fill(position, -1);
    freeSlots = new int[initialCapacity];
  }

  public int size() {
    return size;
  }

  public boolean isEmpty() {
    return size == 0;
  }

  /** Time of the earliest event; {@link Long#MAX_VALUE} when empty. */
  public long peekTime() {
    return size == 0 ? Long.MAX_VALUE : heapTime[0];
  }

  /** Adds an event and returns its handle. */
  public long push(long time, EventHandler h, int eventKind, long eventArg) {
    int slot = allocateSlot();
    handler[slot] = h;
    kind[slot] = eventKind;
    arg[slot] = eventArg;
    int gen = generation[slot] + 1;
    generation[slot] = gen;
    if (size == heapTime.length) {
      growHeap();
    }
    int i = size++;
    siftUp(i, time, nextSeq++, slot);
    return ((long) gen << 32) | slot;
  }

  /** Removes the event behind {@code handle}; returns false if it already ran or was cancelled. */
  public boolean cancel(long handle) {
    if (handle < 0) {
      return false;
    }
    int slot = (int) handle;
    int gen = (int) (handle >>> 32);
    if (slot >= slotsUsed || generation[slot] != gen || position[slot] < 0) {
      return false;
    }
    removeAt(position[slot]);
    freeSlot(slot);
    return true;
  }

  /** Time at which the event behind {@code handle} is due, or -1 if it is not pending. */
  public long timeOf(long handle) {
    if (handle < 0) {
      return -1;
    }
    int slot = (int) handle;
    int gen = (int) (handle >>> 32);
    if (slot >= slotsUsed || generation[slot] != gen || position[slot] < 0) {
      return -1;
    }
    return heapTime[position[slot]];
  }

  /**
   * Removes the earliest event; read it with {@link #poppedTime()}, {@link #poppedHandler()},
   * {@link #poppedKind()} and {@link #poppedArg()}.
   */
  public void pop() {
    if (size == 0) {
      throw new IllegalStateException("pop on an empty event queue");
    }
    int slot = heapSlot[0];
    poppedTime = heapTime[0];
    poppedHandler = handler[slot];
    poppedKind = kind[slot];
    poppedArg = arg[slot];
    removeAt(0);
    freeSlot(slot);
  }

  public long poppedTime() {
    return poppedTime;
  }

  public EventHandler poppedHandler() {
    return poppedHandler;
  }

  public int poppedKind() {
    return poppedKind;
  }

  public long poppedArg() {
    return poppedArg;
  }

  private void removeAt(int i) {
    int last = --size;
    position[heapSlot[i]] = -1;
    if (i == last) {
      return;
    }
    long t = heapTime[last];
    long s = heapSeq[last];
    int slot = heapSlot[last];
    if (i > 0 && less(t, s, heapTime[(i - 1) >>> 2], heapSeq[(i - 1) >>> 2])) {
      siftUp(i, t, s, slot);
    } else {
      siftDown(i, t, s, slot);
    }
  }

  private static boolean less(long t1, long s1, long t2, long s2) {
    return t1 < t2 || (t1 == t2 && s1 < s2);
  }

  private void siftUp(int i, long t, long s, int slot) {
    while (i > 0) {
      int parent = (i - 1) >>> 2;
      long pt = heapTime[parent];
      if (t > pt || (t == pt && s > heapSeq[parent])) {
        break;
      }
      move(parent, i);
      i = parent;
    }
    place(i, t, s, slot);
  }

  private void siftDown(int i, long t, long s, int slot) {
    int n = size;
    while (true) {
      int first = (i << 2) + 1;
      if (first >= n) {
        break;
      }
      int best = first;
      long bt = heapTime[first];
      long bs = heapSeq[first];
      int end = Math.min(first + 4, n);
      for (int c = first + 1; c < end; c++) {
        long ct = heapTime[c];
        if (ct < bt || (ct == bt && heapSeq[c] < bs)) {
          best = c;
          bt = ct;
          bs = heapSeq[c];
        }
      }
      if (!less(bt, bs, t, s)) {
        break;
      }
      move(best, i);
      i = best;
    }
    place(i, t, s, slot);
  }

  private void move(int from, int to) {
    heapTime[to] = heapTime[from];
    heapSeq[to] = heapSeq[from];
    int slot = heapSlot[from];
    heapSlot[to] = slot;
    position[slot] = to;
  }

  private void place(int i, long t, long s, int slot) {
    heapTime[i] = t;
    heapSeq[i] = s;
    heapSlot[i] = slot;
    position[slot] = i;
  }

  private int allocateSlot() {
    if (freeCount > 0) {
      return freeSlots[--freeCount];
    }
    if (slotsUsed == handler.length) {
      growSlots();
    }
    return slotsUsed++;
  }

  private void freeSlot(int slot) {
    handler[slot] = null;
    position[slot] = -1;
    freeSlots[freeCount++] = slot;
  }

  private void growHeap() {
    int n = heapTime.length * 2;
    heapTime = Arrays.copyOf(heapTime, n);
    heapSeq = Arrays.copyOf(heapSeq, n);
    heapSlot = Arrays.copyOf(heapSlot, n);
  }

  private void growSlots() {
    int old = handler.length;
    int n = old * 2;
    handler = Arrays.copyOf(handler, n);
    kind = Arrays.copyOf(kind, n);
    arg = Arrays.copyOf(arg, n);
    generation = Arrays.copyOf(generation, n);
    position = Arrays.copyOf(position, n);
    Arrays.fill(position, old, n, -1);
    freeSlots = Arrays.copyOf(freeSlots, n);
  }
}

package org.lockvisor.core.sim;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.Arrays;

/**
 * The future-event set: a 4-ary min-heap ordered by (time, insertion sequence), with lazy
 * cancellation.
 *
 * <p>Ties on time are broken by insertion order, so a run is a pure function of its inputs. Each
 * heap node is two adjacent {@code long}s — the time, and the sequence number packed with the
 * event's slot ({@code seq << 24 | slot}) — so the four children of a node lie in 64 bytes and
 * sifting touches nothing else. The event's sequence, argument, time, kind and handle generation
 * live in one 32-byte slot record (the handler in a parallel array), so reading or writing an
 * event costs one cache line, not one per field. Cancelling frees the slot at once and leaves a
 * stale heap node behind, which is recognised (its sequence no longer matches the slot's) and
 * dropped when it reaches the top. A handle encodes the slot and a generation, so a stale handle
 * never cancels a later event that reused the slot. Nothing is allocated per event once the
 * arrays have grown to their peak size.
 *
 * <p>Two things keep the heap close to a bare heap of {@code long}s:
 *
 * <ul>
 *   <li>{@link #pop()} leaves the popped node at the root as a stale node. The next {@link #push}
 *       — typically from the handler of the event just popped — overwrites a stale root and sifts
 *       it down ("replace top"), one sift instead of a sift-down of the last leaf plus a sift-up.
 *       Any other read of the top first drops stale roots as before.
 *   <li>The sift-down picks the least of four children without a data-dependent branch: the
 *       comparison of (time, key) pairs is one subtraction with borrow, {@code (ct - bt) -
 *       ((ck - bk) >>> 63)}, whose sign selects the child through masks. Comparisons of random
 *       times are unpredictable, so a branch there costs a misprediction per level. This needs
 *       times and keys in [0, 2^63), which {@link #push} enforces for times.
 * </ul>
 *
 * <p>A large set (more than {@code splitAt} heap nodes, 8192 by default) is split in two tiers so
 * that the heap stays small enough for the first-level caches: the heap holds the events due at
 * or before a bound {@code last}, and the later ones wait, unsorted, in up to 63 "far" buckets of
 * a radix heap over time: bucket b holds the events whose time first differs from {@code last} in
 * bit b, a block of 2^b ns just above {@code last}. A push after the bound is an append. When the
 * heap runs out, the lowest non-empty bucket is moved into it whole if it is small (at most {@code
 * nearTarget} nodes, 1024 by default; {@code last} becomes the end of its block), or else split on
 * its least time into the lower buckets; when few far events remain, all go back into a single
 * heap. Every event in the heap is earlier than every far one, and events due at the same time
 * always share a tier, so the order is exactly the single heap's: (time, insertion sequence).
 * Cancelled far nodes travel unchanged and are dropped when they reach the top of the heap. The
 * buckets are lists of 256-node chunks drawn from one pool and returned to it when emptied, so
 * the far tier's memory follows the number of far nodes. Each refill also reads the slot records
 * of the events it brings into the heap, together ({@link #touchSlots()}).
 */
public final class EventQueue {

  /** A handle that refers to no event; {@link #cancel(long)} ignores it. */
  public static final long NO_EVENT = -1L;

  private static final int SLOT_BITS = 24;
  private static final long SLOT_MASK = (1L << SLOT_BITS) - 1;
  private static final int MAX_SLOTS = 1 << SLOT_BITS;

  // Heap: node i at heap[2i] (time) and heap[2i + 1] (seq << 24 | slot).
  private long[] heap;
  private int nodes;

  // Slots: one record of four longs per slot, so one event's data shares a cache line: [4s] the
  // sequence number (-1 when free), [4s + 1] the argument, [4s + 2] the generation (high 32
  // bits) and kind (low 32 bits), [4s + 3] the time; what a pop reads comes first. Handlers sit
  // in a parallel array.
  private static final int STRIDE = 4;
  private long[] slots;
  private EventHandler[] handler;
  private int[] freeSlots;
  private int freeCount;
  private int slotsUsed;
  private int live;

  // Far tier (see the class comment). A bucket is a list of chunks of CHUNK (time, key) node
  // pairs in one pool (chunk c at pool[2 * CHUNK * c]), filled in order: farSize[b] nodes from
  // chunk farHead[b] on, linked by chunkNext, the last one farTail[b]. Emptied chunks return to a
  // free list, so the pool holds about the number of far nodes plus one chunk per bucket. Bit b
  // of farMask is set when bucket b is not empty. Heap nodes have times <= last, far nodes times
  // > last; last == Long.MAX_VALUE means a single heap (no far tier).
  private static final int FAR_BUCKETS = 63;
  private static final int CHUNK_BITS = 8;
  private static final int CHUNK = 1 << CHUNK_BITS;
  private final int splitAt;
  private final int nearTarget;
  private long last = Long.MAX_VALUE;
  private long[] pool = new long[0];
  private int[] chunkNext = new int[0];
  private int freeChunk = -1;
  private int chunksMade;
  private final int[] farHead = new int[FAR_BUCKETS];
  private final int[] farTail = new int[FAR_BUCKETS];
  private final int[] farSize = new int[FAR_BUCKETS];
  private long farMask;
  private int farCount;

  /** Keeps {@link #touchSlots()}'s loads from being optimised away. */
  private long touchSink;

  private long nextSeq;
  /** Tie-break salt (schedule exploration); 0 keeps insertion order. */
  private long tieSalt;
  private long tieMultiplier;

  // The last popped event (avoids allocating a result object).
  private long poppedTime;
  private EventHandler poppedHandler;
  private int poppedKind;
  private long poppedArg;

  public EventQueue() {
    this(256);
  }

  public EventQueue(int initialCapacity) {
    this(initialCapacity, 8192, 1024);
  }

  /**
   * With the tier thresholds given (for tests): the heap is split in two tiers when it grows past
   * {@code splitAt} nodes, and a far bucket of at most {@code nearTarget} nodes moves into the
   * heap whole.
   */
  EventQueue(int initialCapacity, int splitAt, int nearTarget) {
    checkArgument(initialCapacity > 0, "initialCapacity must be positive: %s", initialCapacity);
    checkArgument(nearTarget > 0 && splitAt > nearTarget,
        "need splitAt > nearTarget > 0: %s, %s", splitAt, nearTarget);
    this.splitAt = splitAt;
    this.nearTarget = nearTarget;
    heap = new long[2 * initialCapacity];
    handler = new EventHandler[initialCapacity];
    slots = new long[STRIDE * initialCapacity];
    for (int i = 0; i < initialCapacity; i++) {
      slots[STRIDE * i] = -1;
    }
    freeSlots = new int[initialCapacity];
  }

  /** Number of pending (not cancelled) events. */
  public int size() {
    return live;
  }

  public boolean isEmpty() {
    return live == 0;
  }

  /** Time of the earliest pending event; {@link Long#MAX_VALUE} when empty. */
  public long peekTime() {
    return ensureTop() ? heap[0] : Long.MAX_VALUE;
  }

  /** Adds an event at {@code time} (not negative) and returns its handle. */
  public long push(long time, EventHandler h, int eventKind, long eventArg) {
    checkArgument(time >= 0, "negative event time: %s", time);
    int slot = allocateSlot();
    long seq = nextSeq++;
    if (tieSalt != 0) {
      seq = scramble(seq);
    }
    long[] sl = slots;
    int r = STRIDE * slot;
    int gen = (int) (sl[r + 2] >>> 32) + 1;
    sl[r] = seq;
    sl[r + 1] = eventArg;
    sl[r + 2] = ((long) gen << 32) | (eventKind & 0xFFFF_FFFFL);
    sl[r + 3] = time;
    handler[slot] = h;
    live++;
    long key = (seq << SLOT_BITS) | slot;
    if (time > last) {
      toFar(time, key);
    } else if (nodes > 0 && isStale(heap[1])) {
      // Replace top: the root is the event just popped (or a cancelled one).
      siftDown(0, time, key);
    } else {
      if (2 * nodes == heap.length) {
        heap = Arrays.copyOf(heap, heap.length * 2);
      }
      siftUp(nodes++, time, key);
      if (nodes > splitAt && last == Long.MAX_VALUE) {
        split();
      }
    }
    return ((long) gen << 32) | slot;
  }

  /** Cancels the event behind {@code handle}; false if it already ran or was cancelled. */
  public boolean cancel(long handle) {
    int slot = liveSlot(handle);
    if (slot < 0) {
      return false;
    }
    freeSlot(slot);
    live--;
    return true;
  }

  /** Time at which the event behind {@code handle} is due, or -1 if it is not pending. */
  public long timeOf(long handle) {
    int slot = liveSlot(handle);
    return slot < 0 ? -1 : slots[STRIDE * slot + 3];
  }

  private int liveSlot(long handle) {
    if (handle < 0) {
      return -1;
    }
    int slot = (int) handle;
    int gen = (int) (handle >>> 32);
    if (slot >= slotsUsed || slots[STRIDE * slot] < 0
        || (int) (slots[STRIDE * slot + 2] >>> 32) != gen) {
      return -1;
    }
    return slot;
  }

  /**
   * Removes the earliest pending event; read it with {@link #poppedTime()}, {@link
   * #poppedHandler()}, {@link #poppedKind()} and {@link #poppedArg()}.
   */
  public void pop() {
    if (!ensureTop()) {
      throw new IllegalStateException("pop on an empty event queue");
    }
    int slot = (int) (heap[1] & SLOT_MASK);
    int r = STRIDE * slot;
    poppedTime = heap[0];
    poppedHandler = handler[slot];
    poppedKind = (int) slots[r + 2];
    poppedArg = slots[r + 1];
    // The root stays behind as a stale node: the next push replaces it, or the next read of the
    // top drops it.
    freeSlot(slot);
    live--;
  }

  /**
   * Schedule exploration: with a non-zero {@code salt}, events due at the same time are taken in
   * an order that is a pseudo-random permutation (keyed by the salt) of their insertion order
   * instead of insertion order itself. Still a pure function of the inputs and the salt. Set it
   * before pushing anything.
   */
  public void setTieBreakSalt(long salt) {
    checkArgument(live == 0 && nodes == 0 && farCount == 0,
        "tie-break salt set on a non-empty queue");
    this.tieSalt = salt;
    this.tieMultiplier = (salt * 0x9E3779B97F4A7C15L) | 1;
  }

  /**
   * A bijection on 39-bit sequence numbers keyed by the salt (xor, multiplications by odd
   * numbers and xor-shifts, each invertible modulo 2^39), so keys stay unique.
   */
  private long scramble(long seq) {
    final long mask = (1L << (63 - SLOT_BITS)) - 1;
    long x = ((seq ^ tieSalt) * tieMultiplier) & mask;
    x ^= x >>> 19;
    x = (x * 0xBF58476D1CE4E5B9L) & mask;
    x ^= x >>> 17;
    return x;
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

  /**
   * Drops stale roots and refills the heap from the far tier when it runs out; true when a live
   * event is at the root.
   */
  private boolean ensureTop() {
    while (true) {
      while (nodes > 0 && isStale(heap[1])) {
        removeTop();
      }
      if (nodes > 0) {
        return true;
      }
      if (farCount == 0) {
        return false;
      }
      refill();
    }
  }

  /** Appends a node with {@code t > last} to its far bucket. */
  private void toFar(long t, long key) {
    int b = 63 - Long.numberOfLeadingZeros(t ^ last);
    int n = farSize[b];
    int c;
    if ((n & (CHUNK - 1)) == 0) {
      c = newChunk();
      if (n == 0) {
        farHead[b] = c;
      } else {
        chunkNext[farTail[b]] = c;
      }
      farTail[b] = c;
    } else {
      c = farTail[b];
    }
    int i = 2 * ((c << CHUNK_BITS) + (n & (CHUNK - 1)));
    pool[i] = t;
    pool[i + 1] = key;
    farSize[b] = n + 1;
    farMask |= 1L << b;
    farCount++;
  }

  private int newChunk() {
    int c = freeChunk;
    if (c >= 0) {
      freeChunk = chunkNext[c];
      return c;
    }
    c = chunksMade++;
    if (c == chunkNext.length) {
      int n = Math.max(16, 2 * c);
      chunkNext = Arrays.copyOf(chunkNext, n);
      pool = Arrays.copyOf(pool, 2 * CHUNK * n);
    }
    return c;
  }

  /**
   * Empties bucket b: moves its nodes into the heap ({@code split} false) or, for a split on
   * {@code last}, those due at {@code last} into the heap and the others to lower buckets; each
   * chunk returns to the free list once read.
   */
  private void drainBucket(int b, boolean split) {
    int n = farSize[b];
    int c = farHead[b];
    farSize[b] = 0;
    farMask &= ~(1L << b);
    farCount -= n;
    while (n > 0) {
      int k = Math.min(n, CHUNK);
      int base = 2 * (c << CHUNK_BITS);
      if (!split) {
        appendToHeap(pool, c << CHUNK_BITS, k);
      } else {
        long bound = last;
        for (int i = 0; i < k; i++) {
          long t = pool[base + 2 * i];
          if (t == bound) {
            appendToHeap(pool, (c << CHUNK_BITS) + i, 1);
          } else {
            toFar(t, pool[base + 2 * i + 1]);
          }
        }
      }
      n -= k;
      int next = chunkNext[c];
      chunkNext[c] = freeChunk;
      freeChunk = c;
      c = next;
    }
  }

  /**
   * Splits a single heap in two tiers: the nodes due at the root's time stay, the later ones go
   * to the far buckets.
   */
  private void split() {
    long[] h = heap;
    int n = nodes;
    if (h[0] == Long.MAX_VALUE) {
      return; // every node is due at the end of time: nothing to move
    }
    last = h[0];
    int kept = 0;
    for (int i = 0; i < n; i++) {
      long t = h[2 * i];
      long key = h[2 * i + 1];
      if (t <= last) {
        h[2 * kept] = t;
        h[2 * kept + 1] = key;
        kept++;
      } else {
        toFar(t, key);
      }
    }
    nodes = kept;
    heapify();
  }

  /** Refills the empty heap from the lowest non-empty far bucket (see the class comment). */
  private void refill() {
    if (farCount <= nearTarget) {
      // Few far events left: back to a single heap.
      for (int b = 0; b < FAR_BUCKETS; b++) {
        drainBucket(b, false);
      }
      last = Long.MAX_VALUE;
      heapify();
      touchSlots();
      return;
    }
    int b = Long.numberOfTrailingZeros(farMask);
    int n = farSize[b];
    if (n <= nearTarget) {
      // The whole block moves; the bound becomes its end (last with bits b..0 set: bit b of
      // last is 0, and it keeps its bits above b, so no other far node changes bucket).
      drainBucket(b, false);
      last |= (2L << b) - 1;
    } else {
      // Split the block on its least time: nodes at that time go to the heap, the others to
      // lower buckets (they share bits b and above with the new bound).
      long min = Long.MAX_VALUE;
      int c = farHead[b];
      for (int left = n; left > 0; left -= CHUNK) {
        int base = 2 * (c << CHUNK_BITS);
        for (int i = 0, k = Math.min(left, CHUNK); i < k; i++) {
          min = Math.min(min, pool[base + 2 * i]);
        }
        c = chunkNext[c];
      }
      last = min;
      drainBucket(b, true);
    }
    heapify();
    touchSlots();
  }

  /**
   * Reads the slot record (both halves: a 32-byte record may straddle two cache lines) and the
   * handler entry of every node now in the heap. These are the events of the next few hundred
   * pops, scheduled long ago; their loads are independent, so the processor overlaps their cache
   * misses here instead of taking them one at a time, each on the critical path of a pop.
   */
  private void touchSlots() {
    long[] h = heap;
    long[] sl = slots;
    EventHandler[] hd = handler;
    long acc = 0;
    for (int i = 0; i < nodes; i++) {
      int slot = (int) (h[2 * i + 1] & SLOT_MASK);
      acc += sl[STRIDE * slot] + sl[STRIDE * slot + 2] + (hd[slot] == null ? 1 : 0);
    }
    touchSink += acc;
  }

  private void appendToHeap(long[] a, int from, int n) {
    int need = 2 * (nodes + n);
    if (need > heap.length) {
      heap = Arrays.copyOf(heap, Math.max(need, 2 * heap.length));
    }
    System.arraycopy(a, 2 * from, heap, 2 * nodes, 2 * n);
    nodes += n;
  }

  /** Floyd's bottom-up heap construction over nodes [0, nodes). */
  private void heapify() {
    if (nodes < 2) {
      return;
    }
    long[] h = heap;
    for (int i = (nodes - 2) >>> 2; i >= 0; i--) {
      siftDown(i, h[2 * i], h[2 * i + 1]);
    }
  }

  private boolean isStale(long key) {
    return slots[STRIDE * (int) (key & SLOT_MASK)] != (key >>> SLOT_BITS);
  }

  private void removeTop() {
    int last = --nodes;
    if (last > 0) {
      siftDown(0, heap[2 * last], heap[2 * last + 1]);
    }
  }

  private void siftUp(int i, long t, long key) {
    long[] h = heap;
    while (i > 0) {
      int parent = (i - 1) >>> 2;
      long pt = h[2 * parent];
      if (t > pt || (t == pt && key > h[2 * parent + 1])) {
        break;
      }
      h[2 * i] = pt;
      h[2 * i + 1] = h[2 * parent + 1];
      i = parent;
    }
    h[2 * i] = t;
    h[2 * i + 1] = key;
  }

  /**
   * Moves (t, key) down from node {@code i}. The least child is chosen branch-free: {@code less}
   * is the sign of {@code (ct - bt) - borrow(ck - bk)}, exact for times and keys in [0, 2^63).
   */
  private void siftDown(int i, long t, long key) {
    long[] h = heap;
    int n = nodes;
    while (true) {
      int first = (i << 2) + 1;
      if (first >= n) {
        break;
      }
      int best = first;
      long bt = h[2 * first];
      long bk = h[2 * first + 1];
      int end = Math.min(first + 4, n);
      for (int c = first + 1; c < end; c++) {
        long ct = h[2 * c];
        long ck = h[2 * c + 1];
        long less = (ct - bt - ((ck - bk) >>> 63)) >> 63; // -1 if (ct, ck) < (bt, bk), else 0
        best ^= (best ^ c) & (int) less;
        bt ^= (bt ^ ct) & less;
        bk ^= (bk ^ ck) & less;
      }
      if (bt > t || (bt == t && bk > key)) {
        break;
      }
      h[2 * i] = bt;
      h[2 * i + 1] = bk;
      i = best;
    }
    h[2 * i] = t;
    h[2 * i + 1] = key;
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
    slots[STRIDE * slot] = -1;
    freeSlots[freeCount++] = slot;
  }

  private void growSlots() {
    int old = handler.length;
    if (old >= MAX_SLOTS) {
      throw new IllegalStateException("more than " + MAX_SLOTS + " pending events");
    }
    int n = Math.min(MAX_SLOTS, old * 2);
    handler = Arrays.copyOf(handler, n);
    slots = Arrays.copyOf(slots, STRIDE * n);
    for (int i = old; i < n; i++) {
      slots[STRIDE * i] = -1;
    }
    freeSlots = Arrays.copyOf(freeSlots, n);
  }
}

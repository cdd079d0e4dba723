package org.lockvisor.core.account;

/**
 * Open-addressing hash map from {@code long} to {@code long} (no boxing). Keys must not be
 * {@link Long#MIN_VALUE}, which marks empty cells. Iteration order is a pure function of the
 * inserted keys, so it is deterministic.
 *
 * <p>Lookups use {@code cells} (key and value side by side, so a hit touches one cache line),
 * placed by the high bits of {@code key * φ} (Fibonacci hashing, which every key bit reaches),
 * linear probing. {@link #forEach} visits entries in the order of the original, single-table map
 * — keys linear-probed from {@code (h ^ h >>> 32) & mask}, the table doubled (keys re-placed in
 * their old visit order) when more than half full — so reports that sum or tie-break in visit
 * order stay bit-identical. That layout is a function of the sequence of new keys alone, so it is
 * not kept up to date on the hot path: new keys are logged in order, and {@code order} is brought
 * up to date by replaying the log, exactly as the original map placed them, when {@link #forEach}
 * needs it. The original home index ignores a key's high bits while the table is small (the cpu
 * id of a {@link CpuTimeAccount} key never reaches it below 8,192 cells), so the same (thread,
 * stack) on several CPUs shared one probe chain: the reason lookups do not use it; placing a
 * replayed key jumps over runs of occupied cells ({@code skip}, a next-free forest with path
 * compression: cells are only ever filled, so a jump lands where the cell-by-cell walk would).
 */
public final class LongLongMap {
  private static final long EMPTY = Long.MIN_VALUE;
  private static final long PHI = 0x9E3779B97F4A7C15L;
  // cells[2j] = key at lookup slot j (EMPTY if free), cells[2j + 1] = its value.
  private long[] cells;
  private int size;
  private int mask;
  private int shift;
  // New keys in the order they came (entry i is the i-th new key).
  private long[] log;
  // The first `ordered` keys of the log in the original map's cell layout (visit order).
  private long[] order;
  private int orderMask;
  private int ordered;
  // For an occupied order cell c: a cell d such that every cell in [c, d) (circularly) is
  // occupied. Not read for free cells.
  private int[] skip;

  public LongLongMap() {
    this(64);
  }

  public LongLongMap(int expected) {
    int cap = Integer.highestOneBit(Math.max(4, expected * 2 - 1)) << 1;
    allocateCells(cap);
    allocateOrder(cap);
    log = new long[cap / 2 + 1];
  }

  public int size() {
    return size;
  }

  public long get(long key, long defaultValue) {
    long[] cs = cells;
    int j = (int) ((key * PHI) >>> shift);
    while (true) {
      long k = cs[2 * j];
      if (k == key) {
        return cs[2 * j + 1];
      }
      if (k == EMPTY) {
        return defaultValue;
      }
      j = (j + 1) & mask;
    }
  }

  /** Adds {@code delta} to the value of {@code key} (absent counts as 0). */
  public void add(long key, long delta) {
    long[] cs = cells;
    int j = (int) ((key * PHI) >>> shift);
    while (true) {
      long k = cs[2 * j];
      if (k == key) {
        cs[2 * j + 1] += delta;
        return;
      }
      if (k == EMPTY) {
        insert(j, key, delta);
        return;
      }
      j = (j + 1) & mask;
    }
  }

  public void put(long key, long value) {
    long[] cs = cells;
    int j = (int) ((key * PHI) >>> shift);
    while (true) {
      long k = cs[2 * j];
      if (k == key) {
        cs[2 * j + 1] = value;
        return;
      }
      if (k == EMPTY) {
        insert(j, key, value);
        return;
      }
      j = (j + 1) & mask;
    }
  }

  /** Visits every entry in the original map's cell order. */
  public void forEach(Visitor visitor) {
    syncOrder();
    long[] keys = order;
    for (long key : keys) {
      if (key != EMPTY) {
        visitor.visit(key, get(key, 0));
      }
    }
  }

  /** Entry visitor. */
  @FunctionalInterface
  public interface Visitor {
    void visit(long key, long value);
  }

  private void insert(int j, long key, long value) {
    cells[2 * j] = key;
    cells[2 * j + 1] = value;
    if (size == log.length) {
      log = java.util.Arrays.copyOf(log, 2 * log.length);
    }
    log[size] = key;
    if (++size * 2 > cells.length / 2) {
      rehashCells();
    }
  }

  /** Places the logged keys not yet in {@code order}, as the original map did on each insert. */
  private void syncOrder() {
    long[] lg = log;
    for (int n = size; ordered < n; ) {
      placeOrder(lg[ordered]);
      if (++ordered * 2 > order.length) {
        rehashOrder();
      }
    }
  }

  /** Linear probing from the original home index to the first free cell (key is absent). */
  private void placeOrder(long key) {
    long h = key * PHI;
    int home = (int) (h ^ (h >>> 32)) & orderMask;
    long[] o = order;
    int[] sk = skip;
    int c = home;
    while (o[c] != EMPTY) {
      c = sk[c];
    }
    // Path compression: every cell on the path from home is followed by occupied cells up to c.
    for (int i = home; i != c; ) {
      int next = sk[i];
      sk[i] = c;
      i = next;
    }
    o[c] = key;
    sk[c] = (c + 1) & orderMask;
  }

  private void placeCell(long key, long value) {
    int j = (int) ((key * PHI) >>> shift);
    while (cells[2 * j] != EMPTY) {
      j = (j + 1) & mask;
    }
    cells[2 * j] = key;
    cells[2 * j + 1] = value;
  }

  private void allocateCells(int cap) {
    cells = new long[2 * cap];
    for (int i = 0; i < cells.length; i += 2) {
      cells[i] = EMPTY;
    }
    mask = cap - 1;
    shift = 64 - Integer.numberOfTrailingZeros(cap);
  }

  private void allocateOrder(int cap) {
    order = new long[cap];
    java.util.Arrays.fill(order, EMPTY);
    skip = new int[cap];
    orderMask = cap - 1;
  }

  private void rehashCells() {
    long[] oldCells = cells;
    allocateCells(oldCells.length);
    for (int i = 0; i < oldCells.length; i += 2) {
      if (oldCells[i] != EMPTY) {
        placeCell(oldCells[i], oldCells[i + 1]);
      }
    }
  }

  /** Doubles the visit-order table; keys are re-placed in old visit order, as the original map did. */
  private void rehashOrder() {
    long[] oldOrder = order;
    allocateOrder(oldOrder.length * 2);
    for (long key : oldOrder) {
      if (key != EMPTY) {
        placeOrder(key);
      }
    }
  }
}

package org.lockvisor.core.account;

/**
 * Open-addressing hash map from {@code long} to {@code long} (no boxing). Keys must not be
 * {@link Long#MIN_VALUE}, which marks empty cells. Iteration order is a pure function of the
 * inserted keys, so it is deterministic.
 *
 * <p>Two tables. Lookups use {@code cells} (key and value side by side, so a hit touches one
 * cache line), placed by the high bits of {@code key * φ} (Fibonacci hashing, which every key bit
 * reaches), linear probing. {@code order} holds the keys alone in the layout of the original,
 * single-table map — linear probing from {@code (h ^ h >>> 32) & mask} — which only new keys and
 * {@link #forEach} touch, so {@code forEach} visits entries in exactly the order it always did
 * (reports that sum or tie-break in visit order stay bit-identical). That original home index
 * ignores a key's high bits while the table is small (the cpu id of a {@link CpuTimeAccount} key
 * never reaches it below 8,192 cells), so the same (thread, stack) on several CPUs shared one
 * probe chain: the reason lookups no longer use it. The same clustering made placing a new key in
 * {@code order} walk long runs of occupied cells, so {@code skip} remembers, for each occupied
 * cell, a cell at or after it (circularly) such that every cell in between is occupied: a
 * "next free cell" forest with path compression. Cells are only ever filled (a rehash rebuilds
 * both), so a jump lands exactly where the cell-by-cell walk would: the layout, and with it the
 * visit order, is unchanged.
 */
public final class LongLongMap {
  private static final long EMPTY = Long.MIN_VALUE;
  private static final long PHI = 0x9E3779B97F4A7C15L;
  // cells[2j] = key at lookup slot j (EMPTY if free), cells[2j + 1] = its value.
  private long[] cells;
  // The keys in the original map's cell layout (visit order).
  private long[] order;
  // For an occupied order cell c: a cell d such that every cell in [c, d) (circularly) is
  // occupied. Not read for free cells.
  private int[] skip;
  private int size;
  private int mask;
  private int shift;

  public LongLongMap() {
    this(64);
  }

  public LongLongMap(int expected) {
    allocate(Integer.highestOneBit(Math.max(4, expected * 2 - 1)) << 1);
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
    placeOrder(key);
    if (++size * 2 > order.length) {
      rehash();
    }
  }

  /** Linear probing from the original home index to the first free cell (key is absent). */
  private void placeOrder(long key) {
    long h = key * PHI;
    int home = (int) (h ^ (h >>> 32)) & mask;
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
    sk[c] = (c + 1) & mask;
  }

  private void placeCell(long key, long value) {
    int j = (int) ((key * PHI) >>> shift);
    while (cells[2 * j] != EMPTY) {
      j = (j + 1) & mask;
    }
    cells[2 * j] = key;
    cells[2 * j + 1] = value;
  }

  private void allocate(int cap) {
    cells = new long[2 * cap];
    for (int i = 0; i < cells.length; i += 2) {
      cells[i] = EMPTY;
    }
    order = new long[cap];
    java.util.Arrays.fill(order, EMPTY);
    skip = new int[cap];
    mask = cap - 1;
    shift = 64 - Integer.numberOfTrailingZeros(cap);
  }

  /** Doubles both tables; keys are re-placed in old visit order, as the original map did. */
  private void rehash() {
    long[] oldCells = cells;
    long[] oldOrder = order;
    allocate(oldOrder.length * 2);
    for (int i = 0; i < oldCells.length; i += 2) {
      if (oldCells[i] != EMPTY) {
        placeCell(oldCells[i], oldCells[i + 1]);
      }
    }
    for (long key : oldOrder) {
      if (key != EMPTY) {
        placeOrder(key);
      }
    }
  }
}

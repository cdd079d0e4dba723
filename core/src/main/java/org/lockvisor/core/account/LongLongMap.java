package org.lockvisor.core.account;

/**
 * Open-addressing hash map from {@code long} to {@code long} (no boxing). Keys must not be
 * {@link Long#MIN_VALUE}, which marks empty cells. Iteration order is the cell order, a pure
 * function of the inserted keys, so it is deterministic.
 *
 * <p>Two tables. The cells (key and value side by side, one cache line per hit) keep the layout
 * of the original map — linear probing from {@code (h ^ h >>> 32) & mask}, {@code h = key * φ} —
 * so {@link #forEach} visits entries in exactly the order it always did (reports that sum or
 * tie-break in visit order stay bit-identical). That home index ignores the key's high bits
 * while the table is small (the cpu id of a {@link CpuTimeAccount} key never reaches it below
 * 8,192 cells), so the same (thread, stack) on several CPUs share one probe chain. Lookups
 * therefore go through a second, {@code int} table: the cell of each key, placed by the high
 * bits of {@code h} (Fibonacci hashing, which every key bit reaches), linear probing. A hit
 * reads one {@code int} and one cell; only a new key walks the cell layout.
 */
public final class LongLongMap {
  private static final long EMPTY = Long.MIN_VALUE;
  private static final long PHI = 0x9E3779B97F4A7C15L;
  // cells[2c] = key of cell c (EMPTY if free), cells[2c + 1] = its value.
  private long[] cells;
  // lookup[j] = 1 + the cell of a key whose Fibonacci slot chain passes j; 0 = free.
  private int[] lookup;
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
    int c = find(key);
    return c >= 0 ? cells[2 * c + 1] : defaultValue;
  }

  /** Adds {@code delta} to the value of {@code key} (absent counts as 0). */
  public void add(long key, long delta) {
    int c = find(key);
    if (c >= 0) {
      cells[2 * c + 1] += delta;
    } else {
      insert(key, delta, ~c);
    }
  }

  public void put(long key, long value) {
    int c = find(key);
    if (c >= 0) {
      cells[2 * c + 1] = value;
    } else {
      insert(key, value, ~c);
    }
  }

  /** Visits every entry in cell order. */
  public void forEach(Visitor visitor) {
    long[] cs = cells;
    for (int i = 0; i < cs.length; i += 2) {
      if (cs[i] != EMPTY) {
        visitor.visit(cs[i], cs[i + 1]);
      }
    }
  }

  /** Entry visitor. */
  @FunctionalInterface
  public interface Visitor {
    void visit(long key, long value);
  }

  /** The cell of {@code key}, or {@code ~j} with j the free lookup slot where it would go. */
  private int find(long key) {
    int[] lk = lookup;
    long[] cs = cells;
    int j = (int) ((key * PHI) >>> shift);
    while (true) {
      int s = lk[j];
      if (s == 0) {
        return ~j;
      }
      if (cs[2 * (s - 1)] == key) {
        return s - 1;
      }
      j = (j + 1) & mask;
    }
  }

  /** Stores a new key in its cell of the original layout and indexes it at lookup slot j. */
  private void insert(long key, long value, int j) {
    int c = placeCell(key, value);
    lookup[j] = c + 1;
    if (++size * 2 > lookup.length) {
      rehash();
    }
  }

  /** Linear probing from the original home index to the first free cell (key is absent). */
  private int placeCell(long key, long value) {
    long h = key * PHI;
    int c = (int) (h ^ (h >>> 32)) & mask;
    while (cells[2 * c] != EMPTY) {
      c = (c + 1) & mask;
    }
    cells[2 * c] = key;
    cells[2 * c + 1] = value;
    return c;
  }

  private void index(long key, int c) {
    int j = (int) ((key * PHI) >>> shift);
    while (lookup[j] != 0) {
      j = (j + 1) & mask;
    }
    lookup[j] = c + 1;
  }

  private void allocate(int cap) {
    cells = new long[2 * cap];
    for (int i = 0; i < cells.length; i += 2) {
      cells[i] = EMPTY;
    }
    lookup = new int[cap];
    mask = cap - 1;
    shift = 64 - Integer.numberOfTrailingZeros(cap);
  }

  /** Doubles both tables; cells are re-placed in old cell order, as the original map did. */
  private void rehash() {
    long[] old = cells;
    allocate(lookup.length * 2);
    for (int i = 0; i < old.length; i += 2) {
      if (old[i] != EMPTY) {
        long key = old[i];
        index(key, placeCell(key, old[i + 1]));
      }
    }
  }
}

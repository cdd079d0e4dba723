package org.lockvisor.core.account;

import java.util.Arrays;

/**
 * Open-addressing hash map from {@code long} to {@code long} (linear probing, no boxing). Keys
 * must not be {@link Long#MIN_VALUE}, which marks empty cells. Iteration order is the cell
 * order, a pure function of the inserted keys, so it is deterministic.
 */
public final class LongLongMap {
  private static final long EMPTY = Long.MIN_VALUE;
  private long[] keys;
  private long[] values;
  private int size;
  private int mask;

  public LongLongMap() {
    this(64);
  }

  public LongLongMap(int expected) {
    int cap = Integer.highestOneBit(Math.max(4, expected * 2 - 1)) << 1;
    keys = new long[cap];
    values = new long[cap];
    Arrays.fill(keys, EMPTY);
    mask = cap - 1;
  }

  public int size() {
    return size;
  }

  public long get(long key, long defaultValue) {
    int i = index(key);
    while (true) {
      long k = keys[i];
      if (k == key) {
        return values[i];
      }
      if (k == EMPTY) {
        return defaultValue;
      }
      i = (i + 1) & mask;
    }
  }

  /** Adds {@code delta} to the value of {@code key} (absent counts as 0). */
  public void add(long key, long delta) {
    int i = index(key);
    while (true) {
      long k = keys[i];
      if (k == key) {
        values[i] += delta;
        return;
      }
      if (k == EMPTY) {
        keys[i] = key;
        values[i] = delta;
        if (++size * 2 > keys.length) {
          rehash();
        }
        return;
      }
      i = (i + 1) & mask;
    }
  }

  public void put(long key, long value) {
    int i = index(key);
    while (true) {
      long k = keys[i];
      if (k == key) {
        values[i] = value;
        return;
      }
      if (k == EMPTY) {
        keys[i] = key;
        values[i] = value;
        if (++size * 2 > keys.length) {
          rehash();
        }
        return;
      }
      i = (i + 1) & mask;
    }
  }

  /** Visits every entry in cell order. */
  public void forEach(Visitor visitor) {
    for (int i = 0; i < keys.length; i++) {
      if (keys[i] != EMPTY) {
        visitor.visit(keys[i], values[i]);
      }
    }
  }

  /** Entry visitor. */
  @FunctionalInterface
  public interface Visitor {
    void visit(long key, long value);
  }

  private int index(long key) {
    long h = key * 0x9E3779B97F4A7C15L;
    return (int) (h ^ (h >>> 32)) & mask;
  }

  private void rehash() {
    long[] oldKeys = keys;
    long[] oldValues = values;
    keys = new long[oldKeys.length * 2];
    values = new long[oldKeys.length * 2];
    Arrays.fill(keys, EMPTY);
    mask = keys.length - 1;
    size = 0;
    for (int i = 0; i < oldKeys.length; i++) {
      if (oldKeys[i] != EMPTY) {
        put(oldKeys[i], oldValues[i]);
      }
    }
  }
}

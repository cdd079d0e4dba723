package org.lockvisor.core.account;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The map agrees with a {@link HashMap} under random adds, puts and gets, and visits its entries
 * in the cell order of the original single-table map (kept below as the reference), which reports
 * that sum or tie-break in visit order depend on, also when visits come between inserts.
 */
class LongLongMapTest {

  @Test
  void randomOps_matchHashMap_andOriginalCellOrder() {
    for (long seed = 1; seed <= 20; seed++) {
      SplittableRandom rnd = new SplittableRandom(seed);
      int expected = 1 + rnd.nextInt(200);
      LongLongMap map = new LongLongMap(expected);
      OriginalMap original = new OriginalMap(expected);
      Map<Long, Long> ref = new HashMap<>();
      int distinct = 1 + rnd.nextInt(20_000);
      for (int op = 0; op < 60_000; op++) {
        long key = accountKey(rnd, distinct);
        long v = rnd.nextLong(1, 1_000_000);
        switch (rnd.nextInt(8)) {
          case 0 -> {
            map.put(key, v);
            original.put(key, v);
            ref.put(key, v);
          }
          case 1 -> assertThat(map.get(key, -7)).isEqualTo(ref.getOrDefault(key, -7L));
          default -> {
            map.add(key, v);
            original.add(key, v);
            ref.merge(key, v, Long::sum);
          }
        }
      }
      assertThat(map.size()).isEqualTo(ref.size());
      List<long[]> visited = new ArrayList<>();
      map.forEach((k, v) -> visited.add(new long[] {k, v}));
      List<long[]> originalOrder = new ArrayList<>();
      original.forEach((k, v) -> originalOrder.add(new long[] {k, v}));
      assertThat(visited).hasSize(ref.size());
      for (int i = 0; i < visited.size(); i++) {
        assertThat(visited.get(i)).containsExactly(originalOrder.get(i));
        assertThat(visited.get(i)[1]).isEqualTo(ref.get(visited.get(i)[0]));
      }
    }
  }

  @Test
  void forEachBetweenInserts_visitsInOriginalCellOrderEachTime() {
    // The visit order is brought up to date lazily: reading it part-way must not change it.
    for (long seed = 1; seed <= 10; seed++) {
      SplittableRandom rnd = new SplittableRandom(seed);
      LongLongMap map = new LongLongMap(4);
      OriginalMap original = new OriginalMap(4);
      int distinct = 1 + rnd.nextInt(5_000);
      for (int op = 0; op < 20_000; op++) {
        long key = accountKey(rnd, distinct);
        map.add(key, 1);
        original.add(key, 1);
        if (rnd.nextInt(500) == 0) {
          assertThat(visitOrder(map)).containsExactlyElementsOf(visitOrder(original));
        }
      }
      assertThat(visitOrder(map)).containsExactlyElementsOf(visitOrder(original));
    }
  }

  private static List<Long> visitOrder(LongLongMap map) {
    List<Long> keys = new ArrayList<>();
    map.forEach((k, v) -> keys.add(k));
    return keys;
  }

  private static List<Long> visitOrder(OriginalMap map) {
    List<Long> keys = new ArrayList<>();
    map.forEach((k, v) -> keys.add(k));
    return keys;
  }

  @Test
  void sameThreadAndStackOnManyCpus_staysExact() {
    // Keys that differ only in the cpu bits: one probe chain in the original layout.
    LongLongMap map = new LongLongMap(4);
    for (int round = 1; round <= 3; round++) {
      for (int cpu = 0; cpu < 1000; cpu++) {
        map.add(CpuTimeAccount.key(cpu, 5, 9), cpu + 1);
      }
    }
    assertThat(map.size()).isEqualTo(1000);
    for (int cpu = 0; cpu < 1000; cpu++) {
      assertThat(map.get(CpuTimeAccount.key(cpu, 5, 9), 0)).isEqualTo(3L * (cpu + 1));
    }
    assertThat(map.get(CpuTimeAccount.key(1000, 5, 9), -1)).isEqualTo(-1);
  }

  /** A key shaped like the account's, drawn from {@code distinct} possibilities. */
  private static long accountKey(SplittableRandom rnd, int distinct) {
    int n = rnd.nextInt(distinct);
    return CpuTimeAccount.key(n % 37, (n / 37) % 301, n / (37 * 301) + (n % 7) * 1000);
  }

  /** The map as it was before the lookup table: one linear-probing table, the reference order. */
  private static final class OriginalMap {
    private static final long EMPTY = Long.MIN_VALUE;
    private long[] keys;
    private long[] values;
    private int size;
    private int mask;

    OriginalMap(int expected) {
      int cap = Integer.highestOneBit(Math.max(4, expected * 2 - 1)) << 1;
      keys = new long[cap];
      values = new long[cap];
      java.util.Arrays.fill(keys, EMPTY);
      mask = cap - 1;
    }

    void add(long key, long delta) {
      int i = index(key);
      while (true) {
        if (keys[i] == key) {
          values[i] += delta;
          return;
        }
        if (keys[i] == EMPTY) {
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

    void put(long key, long value) {
      int i = index(key);
      while (true) {
        if (keys[i] == key) {
          values[i] = value;
          return;
        }
        if (keys[i] == EMPTY) {
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

    void forEach(LongLongMap.Visitor visitor) {
      for (int i = 0; i < keys.length; i++) {
        if (keys[i] != EMPTY) {
          visitor.visit(keys[i], values[i]);
        }
      }
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
      java.util.Arrays.fill(keys, EMPTY);
      mask = keys.length - 1;
      size = 0;
      for (int i = 0; i < oldKeys.length; i++) {
        if (oldKeys[i] != EMPTY) {
          put(oldKeys[i], oldValues[i]);
        }
      }
    }
  }
}

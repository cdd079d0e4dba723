package org.lockvisor.core.account;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Accounting adds up per key, per cpu, per thread; stacks intern and fold correctly. */
class AccountingTest {

  @Test
  void charge_totalsAddUp() {
    CpuTimeAccount a = new CpuTimeAccount();
    a.charge(0, 1, 2, 100);
    a.charge(0, 1, 2, 50);
    a.charge(3, 1, 5, 7);
    a.charge(3, 2, 5, 1);
    assertThat(a.get(0, 1, 2)).isEqualTo(150);
    assertThat(a.cpuTotal(3)).isEqualTo(8);
    assertThat(a.threadTotal(1)).isEqualTo(157);
    assertThat(a.total()).isEqualTo(158);
    AtomicLong sum = new AtomicLong();
    a.forEach((cpu, thread, stack, ns) -> sum.addAndGet(ns));
    assertThat(sum.get()).isEqualTo(158);
  }

  @Test
  void forEachAddedSince_afterGrowth_visitsOnlyLaterEntriesInChargeOrder() {
    CpuTimeAccount a = new CpuTimeAccount();
    a.charge(0, 1, 2, 10);
    a.charge(1, 1, 2, 20);
    int seen = a.entries();
    a.charge(0, 1, 2, 5); // existing entry: not new
    for (int i = 0; i < 3000; i++) { // past the initial capacity of the key log and the map
      a.charge(2, 3, i, i + 1);
    }
    java.util.List<Long> visited = new java.util.ArrayList<>();
    AtomicLong sum = new AtomicLong();
    a.forEachAddedSince(seen, (cpu, thread, stack, ns) -> {
      assertThat(cpu).isEqualTo(2);
      assertThat(ns).isEqualTo(stack + 1L);
      visited.add((long) stack);
      sum.addAndGet(ns);
    });
    assertThat(visited).hasSize(3000);
    assertThat(visited.get(0)).isZero();
    assertThat(visited.get(2999)).isEqualTo(2999L);
    assertThat(sum.get()).isEqualTo(3000L * 3001 / 2);
    AtomicLong all = new AtomicLong();
    a.forEachAddedSince(0, (cpu, thread, stack, ns) -> all.addAndGet(ns));
    assertThat(all.get()).isEqualTo(a.total());
  }

  @Test
  void forEachOfThread_manyThreadsAndGrowth_visitsExactlyThatThreadsEntries() {
    CpuTimeAccount a = new CpuTimeAccount();
    // thread ids past the initial index size, entries past every initial capacity
    for (int i = 0; i < 4000; i++) {
      a.charge(i % 3, i % 300, i, 1 + i % 7);
      a.charge(i % 3, i % 300, i, 2); // the same key again: no new entry
    }
    for (int thread : new int[] {0, 1, 299, 300, 1000}) {
      AtomicLong sum = new AtomicLong();
      java.util.List<Integer> stacks = new java.util.ArrayList<>();
      a.forEachOfThread(thread, (cpu, t, stack, ns) -> {
        assertThat(t).isEqualTo(thread);
        assertThat(cpu).isEqualTo(stack % 3);
        assertThat(ns).isEqualTo(a.get(cpu, t, stack));
        stacks.add(stack);
        sum.addAndGet(ns);
      });
      assertThat(sum.get()).isEqualTo(a.threadTotal(thread));
      assertThat(stacks).isSorted(); // first-charged order
      assertThat(stacks).hasSize(thread < 300 ? 4000 / 300 + (thread < 4000 % 300 ? 1 : 0) : 0);
    }
    // entries charged after a query are found by the next one
    a.charge(5, 1, 99_999, 11);
    a.charge(5, 2000, 7, 13);
    AtomicLong one = new AtomicLong();
    a.forEachOfThread(1, (cpu, t, stack, ns) -> one.addAndGet(ns));
    assertThat(one.get()).isEqualTo(a.threadTotal(1));
    AtomicLong late = new AtomicLong();
    a.forEachOfThread(2000, (cpu, t, stack, ns) -> late.addAndGet(ns));
    assertThat(late.get()).isEqualTo(13);
  }

  @Test
  void stacks_internAndFold() {
    SymbolTable t = new SymbolTable();
    int a = t.symbol("vhost_worker");
    int b = t.symbol("handle_tx");
    int s1 = t.push(t.push(0, a), b);
    int s2 = t.push(t.push(0, a), b);
    assertThat(s1).isEqualTo(s2);
    assertThat(t.folded(s1)).isEqualTo("vhost_worker;handle_tx");
    assertThat(t.leaf(s1)).isEqualTo(b);
    assertThat(t.depth(s1)).isEqualTo(2);
  }

  @Test
  void longLongMap_manyKeys_survivesRehash() {
    LongLongMap m = new LongLongMap(2);
    for (long i = 0; i < 10_000; i++) {
      m.add(i * 7919, i);
    }
    for (long i = 0; i < 10_000; i++) {
      assertThat(m.get(i * 7919, -1)).isEqualTo(i);
    }
    assertThat(m.size()).isEqualTo(10_000);
  }
}

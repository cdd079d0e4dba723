package org.lockvisor.experiment.runner;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.lockvisor.core.account.CpuTimeAccount;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.machine.Machine;
import org.junit.jupiter.api.Test;

/**
 * A measurement window's CPU time is what was charged after it opened: entries that grew, entries
 * new since, and nothing for entries that did not move; its two readers (the entry walk the
 * profiles use and the account {@code run --out}'s reports use) agree entry by entry.
 */
class AccountWindowTest {

  private static long key(int cpu, int thread, int stack) {
    return ((long) cpu << 44) | ((long) thread << 22) | stack;
  }

  @Test
  void window_chargesBeforeAndAfterOpening_onlyTheDeltasBothWays() {
    Machine m = new Machine(new Simulation(1));
    CpuTimeAccount a = m.account();
    a.charge(0, 1, 10, 100);   // grows after opening
    a.charge(1, 2, 11, 50);    // never moves again
    for (int i = 0; i < 2000; i++) { // past every initial capacity before opening
      a.charge(2, 3, 100 + i, 7);
    }
    AccountWindow w = AccountWindow.open(m);
    a.charge(0, 1, 10, 30);
    a.charge(2, 3, 100, 5);
    a.charge(3, 4, 12, 9);     // new after opening
    for (int i = 0; i < 2000; i++) {
      a.charge(4, 5, 5000 + i, i + 1);
    }

    Map<Long, Long> walked = new HashMap<>();
    w.forEachSinceOpened((cpu, thread, stack, ns) -> assertThat(walked.put(key(cpu, thread, stack), ns)).isNull());
    Map<Long, Long> account = new HashMap<>();
    w.sinceOpened().forEach((cpu, thread, stack, ns) -> account.put(key(cpu, thread, stack), ns));

    assertThat(walked).isEqualTo(account);
    assertThat(walked).containsEntry(key(0, 1, 10), 30L).containsEntry(key(2, 3, 100), 5L)
        .containsEntry(key(3, 4, 12), 9L).containsEntry(key(4, 5, 6999), 2000L)
        .doesNotContainKey(key(1, 2, 11)).doesNotContainKey(key(2, 3, 101)).hasSize(3 + 2000);
    assertThat(walked.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(30 + 5 + 9 + 2000L * 2001 / 2);
  }
}

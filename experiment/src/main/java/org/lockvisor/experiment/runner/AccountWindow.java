package org.lockvisor.experiment.runner;

import org.lockvisor.core.account.CpuTimeAccount;
import org.lockvisor.core.account.LongLongMap;
import org.lockvisor.machine.Machine;

/**
 * The CPU-time account of a measurement window: the machine's account keeps counting from time
 * zero, so a snapshot taken when the window opens is subtracted when it closes. The snapshot is
 * one {@code long} per entry, in the order the entries were first charged ({@link
 * CpuTimeAccount#forEachAddedSince}), which is also the order later entries extend; nothing is
 * added on the hot path.
 */
public final class AccountWindow {

  private final Machine machine;
  /** The entries' times when the window opened, by entry index (first-charged order). */
  private final long[] atStart;
  /** The same by key, built only when an account of the window is asked for ({@link #sinceOpened}). */
  private LongLongMap atStartByKey;

  private AccountWindow(Machine machine, long[] atStart) {
    this.machine = machine;
    this.atStart = atStart;
  }

  /** Opens a window on {@code machine} now. */
  public static AccountWindow open(Machine machine) {
    machine.syncAccounting();
    CpuTimeAccount account = machine.account();
    long[] start = new long[account.entries()];
    int[] i = {0};
    account.forEachAddedSince(0, (cpu, thread, stack, ns) -> start[i[0]++] = ns);
    return new AccountWindow(machine, start);
  }

  /**
   * Visits what was charged since the window opened, entry by entry (time > 0 only), in the
   * order the entries were first charged, without building an account of its own.
   */
  public void forEachSinceOpened(CpuTimeAccount.EntryVisitor visitor) {
    machine.syncAccounting();
    long[] start = atStart;
    int[] i = {0};
    machine.account().forEachAddedSince(0, (cpu, thread, stack, ns) -> {
      int index = i[0]++;
      long d = index < start.length ? ns - start[index] : ns;
      if (d > 0) {
        visitor.visit(cpu, thread, stack, d);
      }
    });
  }

  /**
   * What was charged since the window opened, as an account of its own, filled in the machine
   * account's visit order.
   */
  public CpuTimeAccount sinceOpened() {
    machine.syncAccounting();
    CpuTimeAccount account = machine.account();
    if (atStartByKey == null) {
      LongLongMap byKey = new LongLongMap(Math.max(64, atStart.length));
      int[] i = {0};
      account.forEachAddedSince(0, (cpu, thread, stack, ns) -> {
        int index = i[0]++;
        if (index < atStart.length) {
          byKey.put(key(cpu, thread, stack), atStart[index]);
        }
      });
      atStartByKey = byKey;
    }
    CpuTimeAccount delta = new CpuTimeAccount();
    account.forEach((cpu, thread, stack, ns) -> {
      long d = ns - atStartByKey.get(key(cpu, thread, stack), 0L);
      if (d > 0) {
        delta.charge(cpu, thread, stack, d);
      }
    });
    return delta;
  }

  private static long key(int cpu, int thread, int stack) {
    return ((long) cpu << 44) | ((long) thread << 22) | stack;
  }
}

package org.lockvisor.experiment.runner;

import org.lockvisor.core.account.CpuTimeAccount;
import org.lockvisor.core.account.LongLongMap;
import org.lockvisor.machine.Machine;

/**
 * The CPU-time account of a measurement window: the machine's account keeps counting from time
 * zero, so a snapshot taken when the window opens is subtracted when it closes. Taking the
 * snapshot and the difference each walk the account once (keys and values unboxed); nothing is
 * added on the hot path.
 */
public final class AccountWindow {

  private final Machine machine;
  private final LongLongMap atStart;

  private AccountWindow(Machine machine) {
    this.machine = machine;
    this.atStart = new LongLongMap(Math.max(64, machine.account().entries()));
  }

  /** Opens a window on {@code machine} now. */
  public static AccountWindow open(Machine machine) {
    AccountWindow w = new AccountWindow(machine);
    machine.syncAccounting();
    machine.account().forEach((cpu, thread, stack, ns) -> w.atStart.put(key(cpu, thread, stack), ns));
    return w;
  }

  /**
   * Visits what was charged since the window opened, entry by entry (time > 0 only), in the
   * machine account's visit order, without building an account of its own.
   */
  public void forEachSinceOpened(CpuTimeAccount.EntryVisitor visitor) {
    machine.syncAccounting();
    machine.account().forEach((cpu, thread, stack, ns) -> {
      long d = ns - atStart.get(key(cpu, thread, stack), 0L);
      if (d > 0) {
        visitor.visit(cpu, thread, stack, d);
      }
    });
  }

  /** What was charged since the window opened, as an account of its own. */
  public CpuTimeAccount sinceOpened() {
    machine.syncAccounting();
    CpuTimeAccount delta = new CpuTimeAccount();
    machine.account().forEach((cpu, thread, stack, ns) -> {
      long d = ns - atStart.get(key(cpu, thread, stack), 0L);
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

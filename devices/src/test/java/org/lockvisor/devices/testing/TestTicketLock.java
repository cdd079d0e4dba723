package org.lockvisor.devices.testing;

import java.util.ArrayDeque;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.locking.spi.LockStats;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Op;
import org.lockvisor.machine.Task;

/**
 * Test-only FIFO ticket spinlock (until the locking branch's primitives land): waiters spin,
 * charged to the lock API symbol of the mode ({@code _raw_spin_lock_irqsave}...), and the
 * unlocker hands over to the next ticket after {@code handoffNs} (one cache-line transfer).
 * Checks mutual exclusion on every acquisition.
 */
public final class TestTicketLock implements KernelLock {
  private final String name;
  private final long handoffNs;
  private final ArrayDeque<Task> waiters = new ArrayDeque<>();
  private final LockStats stats = new LockStats();
  private Task owner;
  private long acquiredAt;

  public TestTicketLock(String name, long handoffNs) {
    this.name = name;
    this.handoffNs = handoffNs;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String algorithm() {
    return "test-ticket";
  }

  @Override
  public boolean supports(LockMode mode) {
    return mode == LockMode.PLAIN || mode == LockMode.IRQ || mode == LockMode.IRQSAVE || mode == LockMode.BH;
  }

  @Override
  public Task owner() {
    return owner;
  }

  @Override
  public LockStats stats() {
    return stats;
  }

  public int waiters() {
    return waiters.size();
  }

  @Override
  public Op lock(LockMode mode) {
    return new Op() {
      @Override
      public int execute(Task t, int phase) {
        long now = t.machine().sim().now();
        if (phase == 0) {
          if (mode == LockMode.IRQSAVE) {
            t.irqSave();
          } else if (mode == LockMode.IRQ) {
            t.irqDisable();
          }
          t.preemptDisable();
          if (owner == null && waiters.isEmpty()) {
            owner = t;
            acquiredAt = now;
            stats.acquired(false, 0, false);
            return NEXT;
          }
          if (owner == t) {
            throw new AssertionError(t + " takes " + name + " recursively");
          }
          waiters.add(t);
          t.scratch = now;
          int sym = t.machine().symbols().symbol(mode.lockSymbol(), Machine.DOMAIN_KERNEL);
          t.startSpin(sym, s -> owner == s, 0, null);
          return AGAIN;
        }
        if (owner != t) {
          throw new AssertionError(t + " left the spin on " + name + " without owning it; owner " + owner);
        }
        acquiredAt = now;
        stats.acquired(true, now - t.scratch, true);
        return NEXT;
      }

      @Override
      public String toString() {
        return "lock(" + name + ", " + mode + ")";
      }
    };
  }

  @Override
  public Op unlock(LockMode mode) {
    return new Op() {
      @Override
      public int execute(Task t, int phase) {
        if (phase > 0) {
          return NEXT;
        }
        if (owner != t) {
          throw new AssertionError(t + " unlocks " + name + " owned by " + owner);
        }
        stats.released(t.machine().sim().now() - acquiredAt);
        Task next = waiters.poll();
        owner = next;
        if (next != null) {
          next.poke(handoffNs);
        }
        if (mode == LockMode.IRQSAVE || mode == LockMode.IRQ) {
          t.preemptEnable(); // IRQs are still off: cannot switch here
          if (mode == LockMode.IRQSAVE) {
            t.irqRestore();
          } else {
            t.irqEnable();
          }
          return NEXT;
        }
        return t.preemptEnable() ? AGAIN : NEXT;
      }

      @Override
      public String toString() {
        return "unlock(" + name + ", " + mode + ")";
      }
    };
  }
}

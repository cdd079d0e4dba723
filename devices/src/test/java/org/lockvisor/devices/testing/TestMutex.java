package org.lockvisor.devices.testing;

import java.util.ArrayDeque;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.locking.spi.LockStats;
import org.lockvisor.machine.Op;
import org.lockvisor.machine.Task;
import org.lockvisor.machine.TaskState;

/**
 * Test-only sleeping FIFO mutex with direct hand-off (a pthread mutex such as QEMU's global lock,
 * or a kernel mutex without optimistic spinning). Waiting costs nothing but the sleep.
 */
public final class TestMutex implements KernelLock {
  private final String name;
  private final ArrayDeque<Task> waiters = new ArrayDeque<>();
  private final LockStats stats = new LockStats();
  private Task owner;
  private long acquiredAt;

  public TestMutex(String name) {
    this.name = name;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String algorithm() {
    return "test-mutex";
  }

  @Override
  public boolean supports(LockMode mode) {
    return mode == LockMode.SLEEPING;
  }

  @Override
  public Task owner() {
    return owner;
  }

  @Override
  public LockStats stats() {
    return stats;
  }

  @Override
  public Op lock(LockMode mode) {
    return new Op() {
      @Override
      public int execute(Task t, int phase) {
        long now = t.machine().sim().now();
        if (phase == 0) {
          if (owner == null) {
            owner = t;
            acquiredAt = now;
            stats.acquired(false, 0, false);
            return NEXT;
          }
          waiters.add(t);
          t.scratch = now;
        } else if (owner == t) {
          acquiredAt = now;
          stats.acquired(true, now - t.scratch, false);
          return NEXT;
        }
        stats.slept();
        t.setState(TaskState.UNINTERRUPTIBLE);
        t.scheduleNow();
        return AGAIN;
      }
    };
  }

  @Override
  public Op unlock(LockMode mode) {
    return new Op() {
      @Override
      public int execute(Task t, int phase) {
        if (owner != t) {
          throw new AssertionError(t + " unlocks " + name + " owned by " + owner);
        }
        stats.released(t.machine().sim().now() - acquiredAt);
        Task next = waiters.poll();
        owner = next;
        if (next != null) {
          next.kernel().wakeUpNow(next, t.cpu());
        }
        return NEXT;
      }
    };
  }
}

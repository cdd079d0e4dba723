package org.lockvisor.experiment.check;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.lockvisor.core.sim.EventHandler;
import org.lockvisor.core.sim.EventObserver;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Task;
import org.lockvisor.machine.TaskState;
import org.lockvisor.machine.WaitQueue;
import org.lockvisor.machine.observe.InvariantViolation;
import org.lockvisor.machine.observe.MachineInvariants;

/**
 * Observes a run after every event: time never goes backwards; in invariant mode the machine
 * invariants ({@link MachineInvariants}) hold, and every {@value #SCAN_EVERY} events a scan of
 * the waiting tasks finds waits-for cycles (deadlocks), sleepers whose condition has been true
 * with no wakeup in flight for a grace period (lost wakeups), and sleeping lock waiters left
 * behind a free lock. Mutual exclusion is checked by {@link CheckedLock} at every acquisition.
 * The runaway guards (event and wall-clock budgets) sample the events after the budget runs out
 * and report the busiest event type and thread.
 */
public final class RunGuard implements EventObserver {
  static final int SCAN_EVERY = 64;
  static final int WALL_CHECK_EVERY = 1024;
  static final int SAMPLE_EVENTS = 20_000;

  private final Machine machine;
  private final Simulation sim;
  private final RunChecks checks;
  private final MachineInvariants invariants;
  private final List<CheckedLock> locks;
  private final long wallDeadline;
  private long lastTime = Long.MIN_VALUE;
  private long events;
  private long[] trueSince = new long[64];
  private long[] episode = new long[64];
  private long lastScan;
  private final List<org.lockvisor.machine.Kernel> memoKernels = new ArrayList<>();
  private final List<Boolean> memoRunnable = new ArrayList<>();
  private int[] visit = new int[64];
  private int visitStamp;

  // Runaway sampling (allocates, but only once the run has already failed).
  private String runaway;
  private int sampleLeft;
  private int sampleSize;
  private Map<String, Integer> byType;
  private Map<String, Integer> byThread;

  public RunGuard(Machine machine, RunChecks checks, List<CheckedLock> locks) {
    this.machine = machine;
    this.sim = machine.sim();
    this.checks = checks;
    this.invariants = checks.invariants() ? new MachineInvariants(machine) : null;
    this.locks = locks;
    long start = System.nanoTime();
    this.wallDeadline = checks.wallBudgetNs() == Long.MAX_VALUE ? Long.MAX_VALUE : start + checks.wallBudgetNs();
    Arrays.fill(trueSince, -1);
  }

  /** Installs this guard as the simulation's observer. */
  public RunGuard install() {
    sim.setObserver(this);
    return this;
  }

  /** Checks made so far (events observed in invariant mode). */
  public long checks() {
    return invariants == null ? 0 : invariants.checks();
  }

  @Override
  public void afterEvent(long time, int kind, long arg) {
    events++;
    if (time < lastTime) {
      throw new InvariantViolation(time, "monotonic time: an event at t=" + time + " ns ran after one at t="
          + lastTime + " ns");
    }
    lastTime = time;
    if (runaway != null) {
      sample(kind);
      return;
    }
    if (invariants != null) {
      invariants.check();
      if (events % SCAN_EVERY == 0 || time - lastScan >= checks.graceNs() / 8) {
        scanWaiters(time);
      }
    }
    if (events >= checks.eventBudget()) {
      startSampling("event budget of " + checks.eventBudget() + " events exceeded at t=" + time + " ns");
    } else if (wallDeadline != Long.MAX_VALUE && events % WALL_CHECK_EVERY == 0 && System.nanoTime() > wallDeadline) {
      startSampling(String.format(Locale.ROOT, "wall-clock budget of %.1f s exceeded at t=%d ns after %d events",
          checks.wallBudgetNs() / 1e9, time, events));
    }
  }

  /**
   * At the end of a run: a runaway that ended while being sampled; in invariant mode the final
   * scan, and a run that ran out of events with tasks still waiting.
   */
  public void finish() {
    if (runaway != null) {
      throw new RunawayException(runaway + "; busiest over the remaining " + (sampleSize - sampleLeft)
          + " events: event type " + top(byType) + ", handler " + top(byThread));
    }
    if (invariants == null) {
      return;
    }
    scanWaiters(sim.now());
    if (sim.pendingEvents() == 0) {
      StringBuilder blocked = new StringBuilder();
      for (Task t : machine.tasks()) {
        if (t.blockedOn() != null && t.state() != TaskState.RUNNING && !t.onRq()) {
          blocked.append(blocked.length() == 0 ? "" : ", ").append(chain(t));
        }
      }
      if (blocked.length() > 0) {
        throw new InvariantViolation(sim.now(), "deadlock: no event is pending and nothing can wake " + blocked);
      }
    }
  }

  // ---------------------------------------------------------------------------------------
  // Deadlocks and lost wakeups.

  private void scanWaiters(long now) {
    lastScan = now;
    memoKernels.clear();
    memoRunnable.clear();
    List<Task> tasks = machine.tasks();
    int n = tasks.size();
    if (trueSince.length < n) {
      int old = trueSince.length;
      trueSince = Arrays.copyOf(trueSince, Math.max(n, old * 2));
      Arrays.fill(trueSince, old, trueSince.length, -1);
      visit = Arrays.copyOf(visit, trueSince.length);
      episode = Arrays.copyOf(episode, trueSince.length);
    }
    for (int i = 0; i < n; i++) {
      Task t = tasks.get(i);
      Object on = t.blockedOn();
      if (on == null || episode[i] != t.blockedSince()) {
        trueSince[i] = -1; // not waiting, or waiting again since the last scan
        episode[i] = t.blockedSince();
        if (on == null) {
          continue;
        }
      }
      if (on instanceof CheckedLock) {
        findCycle(t, now);
        checkStranded(t, i, now);
      } else {
        checkLostWakeup(t, i, now);
      }
    }
  }

  /** Follows task -> lock -> holder -> lock ... and fails on a cycle. */
  private void findCycle(Task start, long now) {
    int stamp = ++visitStamp;
    Task cur = start;
    while (cur != null && cur.blockedOn() instanceof CheckedLock l) {
      if (visit[cur.id()] == stamp) {
        if (cur == start) {
          throw new InvariantViolation(now, "deadlock: waits-for cycle " + chain(start));
        }
        return; // a cycle not through start: reported when its own members are scanned
      }
      visit[cur.id()] = stamp;
      cur = l.writer();
    }
  }

  /** A sleeping lock waiter behind a lock nobody holds, with nobody waking it. */
  private void checkStranded(Task t, int i, long now) {
    CheckedLock l = (CheckedLock) t.blockedOn();
    // A waker may have chosen this waiter and be preempted before its wake_up_q: only a kernel
    // where nothing else can run any more (no task on a runqueue) is sure to leave it stranded.
    boolean stranded = l.writer() == null && l.readerList().isEmpty() && l.inner().owner() == null
        && l.inner().readers() == 0 && sleeping(t) && !anyRunnable(t.kernel());
    if (!stranded) {
      trueSince[i] = -1;
    } else if (trueSince[i] < 0) {
      trueSince[i] = now;
    } else if (now - trueSince[i] > checks.graceNs()) {
      throw new InvariantViolation(now, "lost wakeup: " + t + " has slept since t=" + t.blockedSince()
          + " ns waiting for " + l + ", which nobody has held since t=" + trueSince[i]
          + " ns, and no task of " + t.kernel() + " can run to wake it (" + taskState(t) + "); waits-for: "
          + chain(t));
    }
  }

  private void checkLostWakeup(Task t, int i, long now) {
    boolean lost = sleeping(t) && t.blockedCondition() != null && t.blockedCondition().test(t);
    if (!lost) {
      trueSince[i] = -1;
    } else if (trueSince[i] < 0) {
      trueSince[i] = now;
    } else if (now - trueSince[i] > checks.graceNs()) {
      throw new InvariantViolation(now, "lost wakeup: " + t + " (" + t.kernel() + ") has slept on "
          + queueName(t.blockedOn()) + " since t=" + t.blockedSince() + " ns; its wake-up condition was true at t=" + trueSince[i]
          + " ns and has stayed true, and no wakeup is in flight (" + taskState(t) + "); waits-for: " + chain(t));
    }
  }

  /** Whether any task of {@code k} is on a runqueue; computed once per kernel per scan. */
  private boolean anyRunnable(org.lockvisor.machine.Kernel k) {
    int i = memoKernels.indexOf(k);
    if (i >= 0) {
      return memoRunnable.get(i);
    }
    boolean any = false;
    for (Task x : machine.tasks()) {
      if (x.kernel() == k && x.onRq()) {
        any = true;
        break;
      }
    }
    memoKernels.add(k);
    memoRunnable.add(any);
    return any;
  }

  private static boolean sleeping(Task t) {
    return t.state() != TaskState.RUNNING && t.state() != TaskState.DEAD && !t.onRq() && !t.onCpu();
  }

  private static String taskState(Task t) {
    return "state " + t.state() + ", " + (t.onRq() ? "on" : "not on") + " a runqueue, "
        + (t.onCpu() ? "on " + t.cpu() : "off cpu");
  }

  private static String queueName(Object on) {
    return on instanceof WaitQueue wq ? "wait queue [" + wq.name() + "]" : "[" + on + "]";
  }

  /** The waits-for chain from {@code t}: thread -> lock or queue -> holder -> ... */
  static String chain(Task t) {
    StringBuilder sb = new StringBuilder();
    List<Task> seen = new ArrayList<>();
    Task cur = t;
    while (cur != null) {
      sb.append(cur.kernel()).append('/').append(cur);
      if (seen.contains(cur)) {
        sb.append(" (cycle)");
        break;
      }
      seen.add(cur);
      Object on = cur.blockedOn();
      if (on == null) {
        sb.append(" (running)");
        break;
      }
      if (on instanceof CheckedLock l) {
        sb.append(" -> ").append(l);
        cur = l.writer();
        if (cur == null) {
          sb.append(l.readerList().isEmpty() ? " -> held by nobody" : " -> held by readers " + l.readerList());
          break;
        }
        sb.append(" -> held by ");
      } else {
        sb.append(" -> ").append(queueName(on)).append(" -> no waker");
        break;
      }
    }
    return sb.toString();
  }

  // ---------------------------------------------------------------------------------------
  // Runaway guards.

  private void startSampling(String message) {
    runaway = message;
    sampleSize = (int) Math.min(SAMPLE_EVENTS, Math.max(100, checks.eventBudget() / 4));
    sampleLeft = sampleSize;
    byType = new HashMap<>();
    byThread = new HashMap<>();
    sample(-1);
  }

  private void sample(int kind) {
    if (kind >= 0) {
      EventHandler h = sim.currentHandler();
      String type = (h == null ? "?" : h.getClass().getSimpleName()) + " kind " + kind;
      byType.merge(type, 1, Integer::sum);
      String thread = h instanceof Task t ? t.kernel() + "/" + t : String.valueOf(h);
      byThread.merge(thread, 1, Integer::sum);
      sampleLeft--;
    }
    if (sampleLeft <= 0 || kind < 0 && sim.pendingEvents() == 0) {
      throw new RunawayException(runaway + "; busiest over the next " + (sampleSize - sampleLeft)
          + " events: event type " + top(byType) + ", handler " + top(byThread));
    }
  }

  private String top(Map<String, Integer> counts) {
    int total = counts.values().stream().mapToInt(Integer::intValue).sum();
    return counts.entrySet().stream().max(Map.Entry.comparingByValue())
        .map(e -> String.format(Locale.ROOT, "[%s] (%.0f %%)", e.getKey(), 100.0 * e.getValue() / total))
        .orElse("[none]");
  }
}

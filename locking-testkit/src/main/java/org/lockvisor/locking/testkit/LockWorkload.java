package org.lockvisor.locking.testkit;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.machine.Op;
import org.lockvisor.machine.Ops;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Task;
import org.lockvisor.machine.TaskAttachment;
import org.lockvisor.machine.observe.MachineInvariants;

/**
 * A locktorture-style workload for one lock: guest tasks that each take the lock a number of
 * times, hold it for a random time, release it and think (preemptible user work) for a random
 * time. It checks mutual exclusion when a task enters the critical section and after every
 * simulation event, records arrival order (when the lock op starts) and acquisition order, and
 * stops the simulation when every task has finished. The machine's own invariants ({@link
 * MachineInvariants}) are checked after every event too, unless left out.
 */
public final class LockWorkload {
  private static final TaskAttachment<Worker> WORKER = TaskAttachment.of("locktorture worker", Worker.class);

  private final LockTestbed bed;
  private final KernelLock lock;
  private final int tasks;
  private final int iterations;
  private final List<Task> workers = new ArrayList<>();
  private final List<String> violations = new ArrayList<>();
  private final List<Integer> arrivals = new ArrayList<>();
  private final List<Integer> acquisitions = new ArrayList<>();
  private int writersInside;
  private int readersInside;
  private Task writerInside;
  private int maxReadersInside;
  private int finished;
  private long totalAcquisitions;
  private long finishedAt = -1;
  private final MachineInvariants invariants;
  /** Liveness: the longest a worker may go without an acquisition, 0 for no bound. */
  private final long livenessBoundNs;
  private long nextLivenessCheckNs;
  private final java.util.EnumSet<LockInvariant> violated = java.util.EnumSet.noneOf(LockInvariant.class);
  private long lastWriterExitNs = -1;
  private long maxHandoffNs;

  private static final class Worker {
    int left;
    final SplittableRandom rng;
    /** When the worker started, or last acquired the lock. */
    long lastProgressNs;
    /** When its current lock op started. */
    long arrivedNs;
    boolean reportedStarving;

    Worker(int left, SplittableRandom rng) {
      this.left = left;
      this.rng = rng;
    }
  }

  private LockWorkload(Builder b) {
    this.bed = b.bed;
    this.lock = b.lock;
    this.tasks = b.tasks;
    this.iterations = b.iterations;
    this.livenessBoundNs = b.livenessBoundNs;
    Program[] cs = variants("torture_lock_busy_wait", b.csMinNs, b.csMaxNs, false);
    Program[] think = variants("torture_think", b.thinkMinNs, b.thinkMaxNs, true);
    Program write = body("lock_torture_writer", b.mode, false, cs, think);
    Program read = b.readMode == null ? null : body("lock_torture_reader", b.readMode, true, cs, think);
    double readFraction = b.readFraction;
    Program main = Program.named("lock_torture")
        .loopWhile(t -> worker(t).left > 0, Program.named("lock_torture_iteration")
            .op(Ops.call(t -> read != null && worker(t).rng.nextDouble() < readFraction ? read : write))
            .build())
        .run(this::finish)
        .build();
    for (int i = 0; i < tasks; i++) {
      Task t = bed.guest().spawn("torture/" + i, main);
      Worker w = new Worker(iterations, bed.sim().streams().get("locktorture/" + lock.name() + "/" + i));
      w.lastProgressNs = bed.sim().now();
      WORKER.set(t, w);
      workers.add(t);
    }
    if (b.machineInvariants) {
      // the machine's own invariants after every event, the lock's as one more named check
      this.invariants = new MachineInvariants(bed.machine()).add(() -> {
        checkInvariants();
        return null;
      }).install();
    } else {
      this.invariants = null;
      bed.sim().setObserver((time, kind, arg) -> checkInvariants());
    }
  }

  public static Builder on(LockTestbed bed, KernelLock lock) {
    return new Builder(bed, lock);
  }

  private static Worker worker(Task t) {
    return WORKER.get(t);
  }

  private static Program[] variants(String symbol, long min, long max, boolean user) {
    Program[] p = new Program[4];
    for (int i = 0; i < 4; i++) {
      long ns = min + (max - min) * i / 3;
      Program.Builder b = Program.named(symbol);
      p[i] = (user ? b.userWork(ns, symbol) : b.work(ns, symbol)).build();
    }
    return p;
  }

  private Program body(String name, LockMode mode, boolean reader, Program[] cs, Program[] think) {
    Op lockOp = lock.lock(mode);
    Op arriveAndLock = new Op() {
      @Override
      public int execute(Task t, int phase) {
        if (phase == 0) {
          arrivals.add(t.id());
          worker(t).arrivedNs = bed.sim().now();
        }
        return lockOp.execute(t, phase);
      }

      @Override
      public String toString() {
        return "arrive+" + lockOp;
      }
    };
    return Program.named(name)
        .op(arriveAndLock)
        .run(t -> enter(t, reader))
        .op(Ops.call(t -> cs[worker(t).rng.nextInt(cs.length)]))
        .run(t -> exit(t, reader))
        .op(lock.unlock(mode))
        .run(t -> worker(t).left--)
        .op(Ops.call(t -> think[worker(t).rng.nextInt(think.length)]))
        .build();
  }

  private void enter(Task t, boolean reader) {
    totalAcquisitions++;
    long now = bed.sim().now();
    Worker me = worker(t);
    if (!reader && lastWriterExitNs >= 0 && me.arrivedNs <= lastWriterExitNs) {
      // it was waiting when the lock was released: the time the lock stayed free is the hand-off
      maxHandoffNs = Math.max(maxHandoffNs, now - lastWriterExitNs);
    }
    me.lastProgressNs = now;
    if (reader) {
      if (writersInside > 0) {
        violation(LockInvariant.MUTUAL_EXCLUSION, "reader " + t + " entered while writer " + writerInside + " is inside");
      }
      readersInside++;
      maxReadersInside = Math.max(maxReadersInside, readersInside);
    } else {
      if (writersInside > 0 || readersInside > 0) {
        violation(LockInvariant.MUTUAL_EXCLUSION, t + " entered while " + (writersInside > 0 ? "writer " + writerInside : readersInside + " readers")
            + " inside");
      }
      writersInside++;
      writerInside = t;
      acquisitions.add(t.id());
    }
  }

  private void exit(Task t, boolean reader) {
    if (reader) {
      readersInside--;
    } else {
      writersInside--;
      writerInside = null;
      lastWriterExitNs = bed.sim().now();
    }
  }

  private void finish(Task t) {
    finished++;
    if (finished == tasks) {
      finishedAt = bed.sim().now();
      bed.sim().stop();
    }
  }

  /**
   * Liveness: every worker that has iterations left acquires the lock within {@link
   * Builder#livenessBoundNs} of starting or of its previous acquisition. A lock that starves a
   * waiter (or a machine that never runs one) fails naming the worker and how long it went
   * without the lock. Checked at most once per tenth of the bound, so the check costs nothing
   * per event.
   */
  private void checkLiveness() {
    long now = bed.sim().now();
    if (livenessBoundNs <= 0 || now < nextLivenessCheckNs) {
      return;
    }
    nextLivenessCheckNs = now + Math.max(1, livenessBoundNs / 10);
    for (Task t : workers) {
      Worker w = worker(t);
      if (w.left > 0 && !w.reportedStarving && now - w.lastProgressNs > livenessBoundNs) {
        w.reportedStarving = true;
        violation(LockInvariant.LIVENESS, t + " has not acquired the lock for " + (now - w.lastProgressNs)
            + " ns (since t=" + w.lastProgressNs + "ns), over the bound of " + livenessBoundNs + " ns");
      }
    }
  }

  private void checkInvariants() {
    checkLiveness();
    if (writersInside > 1) {
      violation(LockInvariant.MUTUAL_EXCLUSION, writersInside + " tasks inside the critical section");
    }
    if (writersInside == 1 && lock.owner() != writerInside) {
      violation(LockInvariant.OWNER, "owner() reports " + lock.owner() + " while " + writerInside + " is inside");
    }
    if (readersInside > 0 && lock.readers() < readersInside) {
      violation(LockInvariant.READERS,
          "readers() reports " + lock.readers() + " while " + readersInside + " readers are inside");
    }
  }

  private void violation(LockInvariant invariant, String what) {
    violated.add(invariant);
    if (violations.size() < 20) {
      violations.add("t=" + bed.sim().now() + "ns " + lock.name() + ": " + invariant.label() + ": " + what);
    }
  }

  /** Runs until every task finished or {@code boundNs} of simulated time passed. */
  public LockWorkload run(long boundNs) {
    bed.sim().runUntil(bed.sim().now() + boundNs);
    return this;
  }

  /** How many times the machine invariants were checked (0 when left out). */
  public long machineInvariantChecks() {
    return invariants == null ? 0 : invariants.checks();
  }

  public boolean allFinished() {
    return finished == tasks;
  }

  /** Simulated time when the last task finished, or -1. */
  public long finishedAt() {
    return finishedAt;
  }

  /** The violations (at most 20), each naming its invariant: {@code t=...ns lock: liveness: ...}. */
  public List<String> violations() {
    return List.copyOf(violations);
  }

  /** The named invariants that were violated at least once. */
  public java.util.Set<LockInvariant> violated() {
    return java.util.Collections.unmodifiableSet(violated);
  }

  /**
   * The longest an exclusive hand-off took: from a writer's release to the next writer's entry,
   * counted only when that writer was already waiting at the release (the time the lock stayed
   * free although someone wanted it). 0 when no writer ever waited.
   */
  public long maxHandoffNs() {
    return maxHandoffNs;
  }

  /** Task ids in the order their (exclusive) lock ops started. */
  public List<Integer> arrivalOrder() {
    return List.copyOf(arrivals);
  }

  /** Task ids in the order they entered the (exclusive) critical section. */
  public List<Integer> acquisitionOrder() {
    return List.copyOf(acquisitions);
  }

  public int maxReadersInside() {
    return maxReadersInside;
  }

  public long totalAcquisitions() {
    return totalAcquisitions;
  }

  public long expectedAcquisitions() {
    return (long) tasks * iterations;
  }

  public List<Task> workers() {
    return List.copyOf(workers);
  }

  /** The tasks that did not finish, with what they were doing. */
  public String unfinished() {
    StringBuilder sb = new StringBuilder();
    for (Task t : workers) {
      if (!t.isDead()) {
        sb.append(t).append(" [left=").append(worker(t).left).append(", state=").append(t.state())
            .append(", activity=").append(t.activity()).append(", onCpu=").append(t.onCpu())
            .append(", cpu=").append(t.cpu()).append("] ");
      }
    }
    return sb.toString();
  }

  /** Builds a {@link LockWorkload}; {@link #start()} spawns its tasks. */
  public static final class Builder {
    private final LockTestbed bed;
    private final KernelLock lock;
    private int tasks = 16;
    private int iterations = 40;
    private LockMode mode;
    private LockMode readMode;
    private double readFraction;
    private long csMinNs = 200;
    private long csMaxNs = 2_000;
    private long thinkMinNs = 500;
    private long thinkMaxNs = 20_000;
    private boolean machineInvariants = true;
    private long livenessBoundNs;

    private Builder(LockTestbed bed, KernelLock lock) {
      this.bed = bed;
      this.lock = lock;
    }

    public Builder tasks(int n) {
      checkArgument(n > 0, "tasks must be positive: %s", n);
      this.tasks = n;
      return this;
    }

    public Builder iterations(int n) {
      checkArgument(n > 0, "iterations must be positive: %s", n);
      this.iterations = n;
      return this;
    }

    /** The exclusive mode (PLAIN, IRQSAVE, SLEEPING, WRITE...). */
    public Builder mode(LockMode m) {
      this.mode = m;
      return this;
    }

    /** A shared mode (READ) taken with probability {@code fraction} per iteration. */
    public Builder readers(LockMode m, double fraction) {
      this.readMode = m;
      this.readFraction = fraction;
      return this;
    }

    public Builder criticalSectionNs(long min, long max) {
      checkArgument(0 <= min && min <= max, "bad critical section range [%s, %s]", min, max);
      this.csMinNs = min;
      this.csMaxNs = max;
      return this;
    }

    public Builder thinkNs(long min, long max) {
      checkArgument(0 <= min && min <= max, "bad think range [%s, %s]", min, max);
      this.thinkMinNs = min;
      this.thinkMaxNs = max;
      return this;
    }

    /**
     * Whether the machine's invariants ({@link MachineInvariants}: one current task per CPU, guest
     * CPUs run only while their vCPU thread is in guest mode, runqueues, CPU-time conservation) are
     * checked after every event, besides the lock's; on by default. A test leaves them out only to
     * measure something the checks would slow down, and says so.
     */
    public Builder machineInvariants(boolean on) {
      this.machineInvariants = on;
      return this;
    }

    /**
     * The liveness invariant's bound: a worker with iterations left that goes this long without
     * acquiring the lock (from its start, or from its last acquisition) is a violation naming it.
     * 0 (the default) checks no liveness.
     */
    public Builder livenessBoundNs(long ns) {
      checkArgument(ns >= 0, "liveness bound must not be negative: %s", ns);
      this.livenessBoundNs = ns;
      return this;
    }

    public LockWorkload start() {
      checkArgument(mode != null, "the workload needs an exclusive mode");
      return new LockWorkload(this);
    }
  }
}

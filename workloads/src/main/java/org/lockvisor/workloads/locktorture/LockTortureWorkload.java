package org.lockvisor.workloads.locktorture;

import static com.google.common.base.Preconditions.checkState;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockFactory.LockKind;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Ops;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Task;
import org.lockvisor.machine.TaskAttachment;
import org.lockvisor.workloads.spi.Workload;
import org.lockvisor.workloads.spi.WorkloadContext;

/**
 * The kernel's lock torture module ({@code kernel/locking/locktorture.c}) in one VM. Each writer
 * kthread loops as {@code lock_torture_writer} does: take the lock, check that no other writer
 * (and no reader) is inside ({@code n_lock_fail} otherwise), count the acquisition
 * ({@code n_lock_acquired}), hold it for the write delay, release it, then do the think time and
 * {@code cond_resched()} (the module's {@code stutter_wait}). Readers ({@code rwsem_lock} only)
 * loop as {@code lock_torture_reader} with the read side.
 *
 * <p>At the end it reports what the module's statistics line reports, {@code Writes: Total: N
 * Max/Min: a/b Fail: f}, with the module's {@code ???} flag when the busiest thread acquired more
 * than twice as often as the idlest ({@code max / 2 > min}), plus throughput in acquisitions per
 * second. The module's rare long random delays are not modelled: hold and think times are
 * options (uniform in [time, time + jitter]).
 */
public final class LockTortureWorkload implements Workload {
  private static final TaskAttachment<Kthread> KTHREAD = TaskAttachment.of("locktorture kthread", Kthread.class);


  private final String name;
  private final LockTortureConfig config;
  private Machine machine;
  private KernelLock lock;
  private final List<Kthread> writers = new ArrayList<>();
  private final List<Kthread> readers = new ArrayList<>();
  private int writersInside;
  private int readersInside;
  private long fails;
  private long since;

  public LockTortureWorkload(String name, LockTortureConfig config) {
    this.name = name;
    this.config = config;
  }

  /** One torture kthread: its random stream and its lock_stress_stats. */
  static final class Kthread {
    final SplittableRandom random;
    final boolean reader;
    Task task;
    long acquired;
    long failed;

    Kthread(SplittableRandom random, boolean reader) {
      this.random = random;
      this.reader = reader;
    }
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String model() {
    return LockTortureFactory.NAME;
  }

  public LockTortureConfig config() {
    return config;
  }

  /** The tortured lock (after {@link #start}). */
  public KernelLock lock() {
    return lock;
  }

  @Override
  public void start(WorkloadContext ctx) {
    checkState(machine == null, "%s is started already", name);
    this.machine = ctx.machine();
    var guest = ctx.vm().guest();
    String algorithm = config.lock().isEmpty() ? ctx.locks().algorithm(guest, config.kind()) : config.lock();
    boolean withReaders = config.nreaders() > 0;
    String lockName = ctx.vm().name() + "/" + name + "/torture_lock";
    this.lock = withReaders
        ? ctx.locks().create(guest, lockName, algorithm, config.kind(), config.lockOptions(), "lock_torture_writer",
            "lock_torture_reader")
        : ctx.locks().create(guest, lockName, algorithm, config.kind(), config.lockOptions(), "lock_torture_writer");
    LockMode writeMode = config.writeMode();
    Program writer = loop("lock_torture_writer", writeMode, false);
    Program reader = withReaders ? loop("lock_torture_reader", config.readMode(), true) : null;
    int nwriters = config.writers(guest.cpuCount());
    for (int i = 0; i < nwriters; i++) {
      writers.add(new Kthread(machine.sim().streams().get(ctx.vm().name() + "/" + name + "/writer" + i), false));
    }
    for (int i = 0; i < config.nreaders(); i++) {
      readers.add(new Kthread(machine.sim().streams().get(ctx.vm().name() + "/" + name + "/reader" + i), true));
    }
    // Created interleaved (as the module creates its kthreads) so placement does not favour writers,
    // each as kthread_run leaves it (Kernel.spawnKthread: fork-balanced, then woken like a sleeper).
    int n = Math.max(writers.size(), readers.size());
    for (int i = 0; i < n; i++) {
      if (i < writers.size()) {
        spawn(guest, writers.get(i), "lock_torture_wr/" + i, writer);
      }
      if (i < readers.size()) {
        spawn(guest, readers.get(i), "lock_torture_rd/" + i, reader);
      }
    }
    this.since = machine.sim().now();
  }

  private static void spawn(org.lockvisor.machine.Kernel guest, Kthread k, String taskName, Program program) {
    k.task = guest.spawnKthread(taskName, program);
    KTHREAD.set(k.task, k);
  }

  private static Kthread kthread(Task t) {
    return KTHREAD.get(t);
  }

  private Program loop(String function, LockMode mode, boolean reader) {
    long hold = config.holdNs();
    long holdJitter = config.holdJitterNs();
    long think = config.thinkNs();
    long thinkJitter = config.thinkJitterNs();
    String delaySymbol = reader ? (config.kind() == LockKind.RWLOCK ? "torture_rwlock_read_delay"
        : "torture_rwsem_read_delay") : delaySymbol();
    Program iteration = Program.named(function)
        .op(lock.lock(mode))
        .run(reader ? this::enterRead : this::enterWrite)
        .op(Ops.work(t -> hold + (holdJitter == 0 ? 0 : kthread(t).random.nextLong(holdJitter + 1)), delaySymbol))
        .run(reader ? this::exitRead : this::exitWrite)
        .op(lock.unlock(mode))
        .op(Ops.work(t -> think + (thinkJitter == 0 ? 0 : kthread(t).random.nextLong(thinkJitter + 1)), function))
        .op(Ops.condResched())
        .build();
    return Program.named(function).loopWhile(t -> true, iteration).build();
  }

  private String delaySymbol() {
    return switch (config.tortureType()) {
      case "spin_lock", "spin_lock_irq" -> "torture_spin_lock_write_delay";
      case "mutex_lock" -> "torture_mutex_delay";
      case "rw_lock", "rw_lock_irq" -> "torture_rwlock_write_delay";
      default -> "torture_rwsem_write_delay";
    };
  }

  private void enterWrite(Task t) {
    Kthread k = kthread(t);
    if (writersInside > 0 || readersInside > 0) {
      k.failed++;
      fails++;
    }
    writersInside++;
    k.acquired++;
  }

  private void exitWrite(Task t) {
    writersInside--;
  }

  private void enterRead(Task t) {
    Kthread k = kthread(t);
    if (writersInside > 0) {
      k.failed++;
      fails++;
    }
    readersInside++;
    k.acquired++;
  }

  private void exitRead(Task t) {
    readersInside--;
  }

  // -------------------------------------------------------------------------------------------
  // Figures.

  @Override
  public void resetStats() {
    for (Kthread k : writers) {
      k.acquired = 0;
      k.failed = 0;
    }
    for (Kthread k : readers) {
      k.acquired = 0;
      k.failed = 0;
    }
    fails = 0;
    since = machine == null ? 0 : machine.sim().now();
  }

  /** Acquisitions per writer kthread since the last reset, in kthread order. */
  public long[] writerAcquisitions() {
    return writers.stream().mapToLong(k -> k.acquired).toArray();
  }

  /** Acquisitions per reader kthread since the last reset, in kthread order. */
  public long[] readerAcquisitions() {
    return readers.stream().mapToLong(k -> k.acquired).toArray();
  }

  /** Mutual-exclusion violations seen (the module's Fail count); 0 for a correct lock. */
  public long fails() {
    return fails;
  }

  private double elapsedSeconds() {
    return Math.max(1, machine.sim().now() - since) / 1e9;
  }

  @Override
  public ImmutableMap<String, Number> figures() {
    double secs = elapsedSeconds();
    long[] w = writerAcquisitions();
    long[] r = readerAcquisitions();
    long writes = sum(w);
    long reads = sum(r);
    ImmutableMap.Builder<String, Number> m = ImmutableMap.builder();
    m.put("acquisitions", writes + reads);
    m.put("acquisitions_per_s", (writes + reads) / secs);
    m.put("writes", writes);
    m.put("writes_max", max(w));
    m.put("writes_min", min(w));
    m.put("writes_per_s", writes / secs);
    if (r.length > 0) {
      m.put("reads", reads);
      m.put("reads_max", max(r));
      m.put("reads_min", min(r));
      m.put("reads_per_s", reads / secs);
    }
    m.put("fail", fails);
    m.put("runtime_ns", machine.sim().now() - since);
    return m.build();
  }

  /** The module's statistics lines, e.g. {@code Writes:  Total: 93746064  Max/Min: 0/0   Fail: 0}. */
  public List<String> statsLines() {
    List<String> lines = new ArrayList<>();
    lines.add(statsLine("Writes", writers));
    if (!readers.isEmpty()) {
      lines.add(statsLine("Reads ", readers));
    }
    return lines;
  }

  /** Same format as {@code __torture_print_stats} in kernel/locking/locktorture.c. */
  private static String statsLine(String what, List<Kthread> threads) {
    long sum = 0;
    long max = 0;
    long min = threads.isEmpty() ? 0 : threads.get(0).acquired;
    boolean fail = false;
    for (Kthread k : threads) {
      sum += k.acquired;
      max = Math.max(max, k.acquired);
      min = Math.min(min, k.acquired);
      fail |= k.failed > 0;
    }
    return String.format(Locale.ROOT, "%s:  Total: %d  Max/Min: %d/%d %s  Fail: %d %s", what, sum, max, min,
        max / 2 > min ? "???" : "", fail ? 1 : 0, fail ? "!!!" : "").stripTrailing();
  }

  /** The module's report: its parameters, statistics lines and per-kthread counts. */
  @Override
  public Optional<Map<String, Object>> nativeReport() {
    if (machine == null) {
      return Optional.empty();
    }
    Map<String, Object> report = new LinkedHashMap<>();
    report.put("torture_type", config.tortureType());
    report.put("lock", lock.algorithm());
    report.put("nwriters_stress", writers.size());
    report.put("nreaders_stress", readers.size());
    report.put("stats", ImmutableList.copyOf(statsLines()));
    report.put("writer_acquisitions", ImmutableList.copyOf(boxed(writerAcquisitions())));
    if (!readers.isEmpty()) {
      report.put("reader_acquisitions", ImmutableList.copyOf(boxed(readerAcquisitions())));
    }
    return Optional.of(report);
  }

  private static List<Long> boxed(long[] values) {
    List<Long> list = new ArrayList<>(values.length);
    for (long v : values) {
      list.add(v);
    }
    return list;
  }

  private static long sum(long[] values) {
    long s = 0;
    for (long v : values) {
      s += v;
    }
    return s;
  }

  private static long max(long[] values) {
    long m = 0;
    for (long v : values) {
      m = Math.max(m, v);
    }
    return m;
  }

  private static long min(long[] values) {
    if (values.length == 0) {
      return 0;
    }
    long m = Long.MAX_VALUE;
    for (long v : values) {
      m = Math.min(m, v);
    }
    return m;
  }
}

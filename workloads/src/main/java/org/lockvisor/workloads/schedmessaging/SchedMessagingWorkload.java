package org.lockvisor.workloads.schedmessaging;

import static com.google.common.base.Preconditions.checkState;

import com.google.common.collect.ImmutableMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.lockvisor.core.plugin.Footprint;
import org.lockvisor.workloads.spi.Workload;
import org.lockvisor.workloads.spi.WorkloadContext;

/**
 * {@code perf bench sched messaging} (tools/perf/bench/sched-messaging.c, after hackbench) in
 * pipe mode, as a guest workload.
 *
 * <p>The parent forks, group by group, {@code fds} receivers and then {@code fds} senders; each
 * receiver owns a pipe, each sender writes {@code loops} messages of {@code datasize} bytes to
 * every receiver of its group, in fd order; each receiver reads {@code fds × loops} messages one
 * read at a time. Children announce they are ready and sleep until the parent starts them all
 * (the wakeup pipe); the parent then reaps them with {@code wait(&status)}, one per child. The
 * reported total time runs from the start to the last reap, like perf's {@code Total time}.
 *
 * <p>Kernel paths (4.8 era, fs/pipe.c, kernel/fork.c, kernel/exit.c, mm/mmap.c):
 *
 * <ul>
 *   <li>{@code pipe_write}: {@code pipe->mutex} (a sleeping mutex with optimistic spinning);
 *       while the pipe is full, wake the reader and {@code pipe_wait} (sleep on the pipe's wait
 *       queue with the mutex dropped); copy the message; unlock; {@code
 *       wake_up_interruptible_sync_poll} wakes a sleeping reader.
 *   <li>{@code pipe_read}: the mutex; while empty, {@code pipe_wait}; copy out; unlock; wake
 *       writers that wait for room.
 *   <li>fork ({@code copy_process}, {@code dup_mmap}): every file VMA is linked into its file's
 *       {@code i_mmap} tree under the file's {@code i_mmap_rwsem} taken for write; the child is
 *       attached under {@code write_lock_irq(&tasklist_lock)}. The child's first steps fault
 *       copy-on-write pages.
 *   <li>fork also links each anonymous VMA of the child into the parent's anon_vma tree
 *       ({@code anon_vma_fork}) under the root anon_vma's rwsem for write: the root of the
 *       parent VMA's anon_vma ({@code lock_anon_vma_root}), one per anonymous VMA of the
 *       parent, each shared by every child's copy of that VMA.
 *   <li>{@code anon_vma_fork} takes that root rwsem twice per anonymous VMA: in {@code
 *       anon_vma_clone} (link into the parent's anon_vma) and again under {@code
 *       anon_vma_lock_write} of the child's new anon_vma, whose root is the parent's root.
 *   <li>exit ({@code exit_mmap}, {@code unlink_anon_vmas}, {@code unlink_file_vma}): each file
 *       VMA is unlinked under the file's i_mmap rwsem for write, each anonymous VMA under its
 *       root anon_vma rwsem (VMAs in address order, see {@link
 *       AddressSpaceLayout}); freeing the child's
 *       own anon_vma ({@code anon_vma_free}) write-locks and unlocks the root rwsem again if it is
 *       locked at that moment (by another fork or exit); the rest of the
 *       address space is torn down; {@code exit_files} closes the pipe ends the child holds
 *       ({@code pipe_release}: the pipe mutex and a wakeup of the pipe's sleepers); then {@code
 *       exit_notify} under {@code tasklist_lock} and {@code __wake_up_parent}. Threads ({@code
 *       -t}) share the address space: thread creation maps a stack under {@code mmap_sem} for
 *       write and exit unmaps nothing.
 *   <li>{@code wait} ({@code do_wait}, any child): under {@code read_lock(&tasklist_lock)} the
 *       parent runs {@code wait_consider_task} over its children list (creation order) up to the
 *       first zombie — or over the whole list when there is none, and then sleeps until the next
 *       child exit. The zombie is released under the write lock.
 * </ul>
 *
 * <p>tasklist_lock is the rwlock_t it is in 4.8 (kernel/fork.c {@code copy_process}, kernel/exit.c
 * {@code exit_notify} and {@code release_task}: {@code write_lock_irq}; {@code do_wait}: {@code
 * read_lock}), so the parent's scan shares it with nothing but excludes the exiting children's
 * and its own write sections, and perf shows {@code _raw_write_lock_irq}. It is the only rwlock_t
 * on the path: the pipe paths take {@code pipe->mutex} and wait-queue spinlocks (fs/pipe.c),
 * {@code kill_fasync} (fs/fcntl.c) does nothing without O_ASYNC, which the benchmark does not
 * set, and the mm paths take rwsems.
 *
 * <p>Simplifications: the pipe wait queue's spinlock is priced, not simulated; the ready pipe is
 * a counter. Locks come from the context's lock provider, so the experiment chooses their
 * algorithms (mutex-count, rwsem-xadd, ppc-splpar and ppc-splpar-rwlock for a 4.8 powerpc
 * guest).
 *
 * <p>This class is the workload's face (start, results, perf's output); the benchmark's kernel
 * objects and processes are {@link SchedMessagingState}, its programs {@link
 * SchedMessagingPrograms} and its own ops {@link SchedMessagingOps}.
 */
public final class SchedMessagingWorkload implements Workload {
  /** The command name every task of the benchmark shows in perf. */
  public static final String COMMAND = "sched-messaging";

  private final String name;
  private final SchedMessagingConfig config;
  private final SchedMessagingState s;

  /**
   * A workload with explicit costs; with {@code costs} null they are read from the context's cost
   * source at start ({@link SchedMessagingCosts#from}).
   */
  public SchedMessagingWorkload(String name, SchedMessagingConfig config, SchedMessagingCosts costs) {
    this.name = name;
    this.config = config;
    this.s = new SchedMessagingState(config, costs);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String model() {
    return SchedMessagingFactory.NAME;
  }

  /**
   * Heap per task over a whole {@code lockvisor run} of the benchmark, rounded up: its task,
   * scheduler entity and programs, its share of the pipes, their mutexes and statistics, the
   * waiter nodes it leaves in every lock it has queued on (the pipe mutexes and the address
   * space's rwsems, kept per lock and task), and its share of the outputs, which dominate: the
   * {@code perf script} text of each variant is built in memory before it is written, about 19 KB
   * per task (one record pair per thread, CPU and stack). Measured on 7 December 2026 with {@code
   * jcmd GC.class_histogram} (live heap after a full GC) every 2-5 s over {@code lockvisor run} of
   * vcpu-preempted-powervm.yaml (base and patched, until done): peaks of 318 MB at -g 100 (4,000
   * tasks) and 1,255 MB at -g 400 (16,000 tasks), 78 KB per task between the two (the machine
   * alone while it runs: about 9 KB per task, 50 and 155 MB); rounded up by a quarter because
   * samples seconds apart miss the top of a growing output buffer.
   */
  static final long BYTES_PER_TASK = 96 << 10;

  /**
   * Each mapping lock of the address space (shared by every task): the lock, its accounting and
   * its statistics with their arrays, about 1 KB per lock in the same histograms; rounded up.
   */
  static final long BYTES_PER_MM_LOCK = 2_048;

  @Override
  public Footprint footprint() {
    long tasks = config.tasks();
    long mmLocks = config.layout().locks();
    long bytes = Footprint.plus(Footprint.times(tasks, BYTES_PER_TASK), Footprint.times(mmLocks, BYTES_PER_MM_LOCK));
    return new Footprint(bytes, config.groups() + " groups x " + config.fds() + " fds = " + config.tasks() + " tasks and "
        + (long) config.groups() * config.fds() + " pipes");
  }

  public SchedMessagingConfig config() {
    return config;
  }

  @Override
  public void start(WorkloadContext context) {
    checkState(s.machine == null, "%s started twice", name);
    s.create(context, name);
    SchedMessagingPrograms p = new SchedMessagingPrograms(s);
    s.parent = s.guest.spawn(COMMAND, p.parent);
  }

  // ---------------------------------------------------------------------------------------
  // Results.

  /** Whether every child has been reaped. */
  @Override
  public boolean finished() {
    return s.endNs >= 0;
  }

  /** The benchmark ends once the parent has reaped every child. */
  @Override
  public boolean finishes() {
    return true;
  }

  /** When the parent reaped the last child (ns), or -1. */
  @Override
  public long finishedNs() {
    return s.endNs;
  }

  /** Whether the parent has started the children. */
  public boolean running() {
    return s.started;
  }

  /** When the parent started the children (ns), or -1. */
  public long startNs() {
    return s.startNs;
  }

  /** perf's "Total time": start to last reap, in ns; -1 until finished. */
  public long totalTimeNs() {
    return s.endNs < 0 ? -1 : s.endNs - s.startNs;
  }

  public int exited() {
    return s.exited;
  }

  public long messagesWritten() {
    return s.messagesWritten;
  }

  public long messagesRead() {
    return s.messagesRead;
  }

  /** Messages the benchmark writes in total. */
  public long messagesTotal() {
    return (long) config.groups() * config.fds() * config.fds() * config.loops();
  }

  @Override
  public void resetStats() {
    s.readerSleeps = 0;
    s.writerSleeps = 0;
    s.parentScans = 0;
    s.childrenScanned = 0;
  }

  @Override
  public ImmutableMap<String, Number> figures() {
    return ImmutableMap.<String, Number>builder()
        .put("total_time_s", finished() ? totalTimeNs() / 1e9 : -1.0)
        .put("tasks", config.tasks())
        .put("messages_written", s.messagesWritten)
        .put("messages_read", s.messagesRead)
        .put("exited", s.exited)
        .put("first_exit_s", s.firstExitNs < 0 || s.startNs < 0 ? -1.0 : (s.firstExitNs - s.startNs) / 1e9)
        .put("last_exit_s", s.lastExitNs < 0 || s.startNs < 0 ? -1.0 : (s.lastExitNs - s.startNs) / 1e9)
        .put("reader_sleeps", s.readerSleeps)
        .put("writer_sleeps", s.writerSleeps)
        .put("wait4_scans", s.parentScans)
        .put("children_scanned", s.childrenScanned)
        .put("anon_vma_free_relocks", s.anonVmaRelocks)
        .build();
  }

  /** perf bench's own output. */
  @Override
  public Optional<Map<String, Object>> nativeReport() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("groups", config.groups());
    m.put("fds", config.fds());
    m.put("tasks", config.tasks());
    m.put("mode", config.threads() ? "threads" : "processes");
    m.put("total_time_s", finished() ? totalTimeNs() / 1e9 : null);
    return Optional.of(m);
  }

  /** perf bench's text: "# 20 sender and receiver processes per group ... Total time: x [sec]". */
  public String perfBenchText() {
    String unit = config.threads() ? "threads" : "processes";
    return String.format("# %d sender and receiver %s per group%n# %d groups == %d %s run%n%n     Total time: %s [sec]",
        config.fds(), unit, config.groups(), config.tasks(), unit,
        finished() ? String.format("%.3f", totalTimeNs() / 1e9) : "(not finished)");
  }
}

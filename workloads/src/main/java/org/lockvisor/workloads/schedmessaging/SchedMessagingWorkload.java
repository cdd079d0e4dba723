package org.lockvisor.workloads.schedmessaging;

import static com.google.common.base.Preconditions.checkState;

import com.google.common.collect.ImmutableMap;
import java.util.ArrayDeque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.function.Predicate;
import org.lockvisor.core.plugin.Footprint;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockFactory.LockKind;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Op;
import org.lockvisor.machine.Ops;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Task;
import org.lockvisor.machine.TaskState;
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
 *   <li>exit ({@code exit_mmap}, {@code unlink_anon_vmas}, {@code unlink_file_vma}): each file
 *       VMA is unlinked under the file's i_mmap rwsem for write, each anonymous VMA under its
 *       root anon_vma rwsem (VMAs in address order, see {@link #vmaOrder}), the rest of the
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
 */
public final class SchedMessagingWorkload implements Workload {
  /** The command name every task of the benchmark shows in perf. */
  public static final String COMMAND = "sched-messaging";

  private final String name;
  private final SchedMessagingConfig config;
  private SchedMessagingCosts costs;

  private Machine machine;
  private Kernel guest;
  private Pipe[] pipes;
  private Pipe readyPipe;
  private Pipe wakePipe;
  private KernelLock[] mmLocks;
  private int[] treeSize;
  private int[] vmaOrder;
  private SplittableRandom jitter;
  private KernelLock tasklistLock;
  private Member[] members;
  private Task parent;
  private Parent parentState;
  private int ready;
  private boolean started;
  private long startNs = -1;
  private long endNs = -1;
  private int exited;
  private long firstExitNs = -1;
  private long lastExitNs = -1;
  private long messagesWritten;
  private long messagesRead;
  private long readerSleeps;
  private long writerSleeps;
  private long parentScans;
  private long childrenScanned;

  /** One pipe: its mutex, its buffered messages and who sleeps on its wait queue. */
  private static final class Pipe {
    final KernelLock mutex;
    int messages;
    Task readerSleeper;
    final ArrayDeque<Task> writerSleepers = new ArrayDeque<>(2);

    Pipe(KernelLock mutex) {
      this.mutex = mutex;
    }
  }

  /** Per-child state. */
  private static final class Member {
    final int group;
    final int index;
    final boolean sender;
    Task task;
    int done; // messages written (sender) or read (receiver)
    int closed; // pipe ends closed by exit_files so far
    int wakeBudget; // writers still to wake in the reader's current wakeup
    int vma;
    Pipe pipe;
    KernelLock mmLock;
    boolean zombie;
    boolean reaped;

    Member(int group, int index, boolean sender) {
      this.group = group;
      this.index = index;
      this.sender = sender;
    }
  }

  /** The parent's state. */
  private static final class Parent {
    int forked;
    int vma;
    KernelLock mmLock;
    int woken;
    int reaped;
    /** Children before this index are all reaped (the children list starts here). */
    int firstUnreaped;
    /** The zombie the last scan found. */
    int target = -1;
    boolean waiting;
    boolean found;
  }

  /**
   * A workload with explicit costs; with {@code costs} null they are read from the context's cost
   * source at start ({@link SchedMessagingCosts#from}).
   */
  public SchedMessagingWorkload(String name, SchedMessagingConfig config, SchedMessagingCosts costs) {
    this.name = name;
    this.config = config;
    this.costs = costs;
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
   * Each sender-receiver pair with the receiver's pipe, its mutex and wait queue: about 3,000
   * bytes (measured on scale-sched-messaging: 10,000 pairs took 29 MB, as 100 x 100 or 10 x
   * 1,000); each mapping lock of the address space about 200 bytes.
   */
  @Override
  public Footprint footprint() {
    long pairs = (long) config.groups() * config.fds();
    long mmLocks = (long) config.mappedFiles() * config.vmasPerFile() + config.anonVmas();
    return new Footprint(Footprint.plus(Footprint.times(pairs, 3_000), Footprint.times(mmLocks, 200)),
        config.groups() + " groups x " + config.fds() + " fds = " + config.tasks() + " tasks and " + pairs + " pipes");
  }

  public SchedMessagingConfig config() {
    return config;
  }

  @Override
  public void start(WorkloadContext context) {
    checkState(machine == null, "%s started twice", name);
    this.machine = context.machine();
    this.guest = context.vm().guest();
    if (costs == null) {
      costs = SchedMessagingCosts.from(context.costs());
    }
    jitter = machine.sim().streams().get(context.vm().name() + "/" + name + "/vfs");
    int fds = config.fds();
    int groups = config.groups();
    pipes = new Pipe[groups * fds];
    for (int i = 0; i < pipes.length; i++) {
      pipes[i] = new Pipe(context.locks().create(guest, "pipe" + i + ".mutex", LockKind.MUTEX));
    }
    if (!config.threads()) {
      // perf's ready and wakeup pipes: every child inherits an end of each and closes it at exit
      readyPipe = new Pipe(context.locks().create(guest, "ready_pipe.mutex", LockKind.MUTEX));
      wakePipe = new Pipe(context.locks().create(guest, "wake_pipe.mutex", LockKind.MUTEX));
    }
    if (config.threads()) {
      mmLocks = new KernelLock[] {context.locks().create(guest, "mm.mmap_sem", LockKind.RWSEM)};
    } else {
      mmLocks = new KernelLock[config.mappedFiles() + config.anonVmas()];
      for (int f = 0; f < config.mappedFiles(); f++) {
        mmLocks[f] = context.locks().create(guest, "file" + f + ".i_mmap_rwsem", LockKind.RWSEM);
      }
      // anon_vma_fork: the child's anon_vma of a VMA gets root = pvma->anon_vma->root, and
      // lock_anon_vma_root() write-locks that root's rwsem; the parent's anonymous VMAs each have
      // their own anon_vma (anon_vma_prepare), so there is one root rwsem per parent VMA, shared
      // by every child's copy of that VMA
      for (int a = 0; a < config.anonVmas(); a++) {
        mmLocks[config.mappedFiles() + a] = context.locks().create(guest, "anon_vma" + a + ".rwsem", LockKind.RWSEM);
      }
    }
    treeSize = new int[mmLocks.length];
    vmaOrder = vmaOrder(config);
    tasklistLock = context.locks().create(guest, "tasklist_lock", LockKind.RWLOCK);
    members = new Member[config.tasks()];
    for (int g = 0; g < groups; g++) {
      for (int i = 0; i < fds; i++) {
        members[g * 2 * fds + i] = new Member(g, i, false);
        members[g * 2 * fds + fds + i] = new Member(g, i, true);
      }
    }
    parentState = new Parent();
    Programs p = new Programs();
    parent = guest.spawn(COMMAND, p.parent);
    parent.userData = parentState;
  }

  // ---------------------------------------------------------------------------------------
  // Programs.

  private final class Programs {
    final Program child;
    final Program parent;

    Programs() {
      int mmOps = config.threads() ? 1 : config.mappedFiles() * config.vmasPerFile() + config.anonVmas();
      long copy = costs.copyNs(config.dataSize());

      // pipe_write
      Program writerWait = Program.named("pipe_wait")
          .op(Ops.wake(t -> takeReader(member(t).pipe)))
          .run(t -> {
            Member m = member(t);
            t.setState(TaskState.INTERRUPTIBLE);
            m.pipe.writerSleepers.addLast(t);
            writerSleeps++;
          })
          .op(new PipeMutex(false))
          .op(Ops.schedule())
          .op(new PipeMutex(true))
          .build();
      Program write = Program.named("SyS_write")
          .op(Ops.work(t -> jittered(costs.vfsNs()), "vfs_write"))
          .op(new PipeMutex(true))
          .loopWhile(t -> member(t).pipe.messages >= config.pipeCapacityMessages(), writerWait)
          .work(costs.pipeWriteNs(), "pipe_write")
          .work(copy, config.copySymbol())
          .run(t -> {
            member(t).pipe.messages++;
            messagesWritten++;
          })
          .op(new PipeMutex(false))
          .work(costs.wakeCallNs(), "__wake_up_sync_key")
          .op(Ops.wake(t -> takeReader(member(t).pipe)))
          .build();
      Program sendOne = Program.named("send_message")
          .userWork(costs.userNs(), "sender")
          .run(t -> {
            Member m = member(t);
            m.pipe = pipes[m.group * config.fds() + m.done % config.fds()];
          })
          .work(costs.syscallNs(), "system_call")
          .call(write)
          .run(t -> member(t).done++)
          .build();

      // pipe_read
      Program readerWait = Program.named("pipe_wait")
          .run(t -> {
            Member m = member(t);
            t.setState(TaskState.INTERRUPTIBLE);
            m.pipe.readerSleeper = t;
            readerSleeps++;
          })
          .op(new PipeMutex(false))
          .op(Ops.schedule())
          .op(new PipeMutex(true))
          .build();
      Program wakeWriter = Program.named("__wake_up_common")
          .op(Ops.wake(t -> member(t).pipe.writerSleepers.pollFirst()))
          .build();
      Program read = Program.named("SyS_read")
          .op(Ops.work(t -> jittered(costs.vfsNs()), "vfs_read"))
          .op(new PipeMutex(true))
          .loopWhile(t -> member(t).pipe.messages == 0, readerWait)
          .work(costs.pipeReadNs(), "pipe_read")
          .work(copy, config.copySymbol())
          .run(t -> {
            member(t).pipe.messages--;
            messagesRead++;
          })
          .op(new PipeMutex(false))
          // wake_up_interruptible_sync_poll: __wake_up_common walks the waiters queued now, under
          // the wait-queue lock that a woken writer's prepare_to_wait needs to queue again, so a
          // writer that wakes, finds the pipe still full and sleeps again is not woken twice
          .run(t -> member(t).wakeBudget = member(t).pipe.writerSleepers.size())
          .loopWhile(t -> member(t).wakeBudget-- > 0 && !member(t).pipe.writerSleepers.isEmpty(), wakeWriter)
          .build();
      Program receiveOne = Program.named("receive_message")
          .userWork(costs.userNs(), "receiver")
          .work(costs.syscallNs(), "system_call")
          .call(read)
          .run(t -> member(t).done++)
          .build();

      // exit
      Program unlinkVma = Program.named("unlink_file_vma")
          .run(t -> {
            Member m = member(t);
            m.mmLock = mmLocks[lockIndex(m.vma)];
          })
          .op(new MmLock(true))
          .op(new TreeWork(false, "vma_interval_tree_remove"))
          .op(new MmLock(false))
          .run(t -> member(t).vma++)
          .build();
      Program.Builder exit = Program.named("do_exit");
      if (!config.threads()) {
        exit.run(t -> member(t).vma = 0)
            .loopWhile(t -> member(t).vma < mmOps, unlinkVma)
            .work(costs.exitTeardownNs(), "unmap_page_range");
        Program release = Program.named("pipe_release")
            .run(t -> {
              Member m = member(t);
              m.pipe = heldPipe(m, m.closed);
            })
            .op(new PipeMutex(true))
            .work(costs.wakeCallNs(), "__wake_up_sync_key")
            .op(Ops.wake(t -> takeReader(member(t).pipe)))
            .run(t -> member(t).wakeBudget = member(t).pipe.writerSleepers.size())
            .loopWhile(t -> member(t).wakeBudget-- > 0 && !member(t).pipe.writerSleepers.isEmpty(), wakeWriter)
            .op(new PipeMutex(false))
            .work(costs.vfsNs(), "__fput")
            .run(t -> member(t).closed++)
            .build();
        exit.run(t -> member(t).closed = 0)
            .loopWhile(t -> member(t).closed < heldPipes(member(t)), release);
      }
      exit.op(tasklistLock.lock(LockMode.WRITE_LOCK_IRQ))
          .work(costs.exitNotifyNs(), "exit_notify")
          .run(t -> {
            member(t).zombie = true;
            exited++;
            lastExitNs = machine.sim().now();
            if (firstExitNs < 0) {
              firstExitNs = lastExitNs;
            }
          })
          .op(tasklistLock.unlock(LockMode.WRITE_LOCK_IRQ))
          .op(Ops.wake(t -> parentState.waiting ? SchedMessagingWorkload.this.parent : null));
      Program exitPath = exit.build();

      // the child: COW faults, ready, wait for the start, work, exit
      Program.Builder cb = Program.named("sched-messaging");
      if (!config.threads() && costs.cowFaults() > 0) {
        // do_wp_page -> wp_page_copy -> copy_user_highpage: each fault copies one whole PAGE_SIZE
        // page (64 KiB on a ppc64 kernel with CONFIG_PPC_64K_PAGES)
        cb.work((costs.cowFaultNs() + costs.copyNs(config.pageSize())) * costs.cowFaults(), config.copyPageSymbol());
      }
      this.child = cb
          .run(t -> ready++)
          .op(Ops.wake(t -> ready == members.length && parentState.waiting ? SchedMessagingWorkload.this.parent : null))
          .op(new SleepUntil(t -> started))
          .loopWhile(t -> member(t).sender && member(t).done < config.loops() * config.fds(), sendOne)
          .loopWhile(t -> !member(t).sender && member(t).done < config.loops() * config.fds(), receiveOne)
          .call(exitPath)
          .build();

      // the parent: fork everyone, wait until ready, start, reap in creation order
      Program linkVma = Program.named("dup_mmap")
          .run(t -> parentState.mmLock = mmLocks[lockIndex(parentState.vma)])
          .op(new MmLock(true))
          .op(new TreeWork(true, "vma_interval_tree_insert_after"))
          .op(new MmLock(false))
          .run(t -> parentState.vma++)
          .build();
      Program fork = Program.named("_do_fork")
          .work(costs.copyProcessNs(), "copy_process")
          .run(t -> parentState.vma = 0)
          .loopWhile(t -> parentState.vma < mmOps, linkVma)
          .op(tasklistLock.lock(LockMode.WRITE_LOCK_IRQ))
          .work(costs.exitNotifyNs(), "copy_process")
          .op(tasklistLock.unlock(LockMode.WRITE_LOCK_IRQ))
          .run(t -> {
            Member m = members[parentState.forked++];
            m.task = guest.spawn(COMMAND, child);
            m.task.userData = m;
            if (!m.sender) {
              m.pipe = pipes[m.group * config.fds() + m.index];
            }
          })
          .build();
      Program wakeOne = Program.named("pollwake")
          .op(Ops.wake(t -> members[parentState.woken++].task))
          .build();
      Program release = Program.named("release_task")
          .op(tasklistLock.lock(LockMode.WRITE_LOCK_IRQ))
          .work(costs.releaseTaskNs(), "release_task")
          .op(tasklistLock.unlock(LockMode.WRITE_LOCK_IRQ))
          .run(t -> {
            members[parentState.target].reaped = true;
            parentState.reaped++;
            while (parentState.firstUnreaped < members.length && members[parentState.firstUnreaped].reaped) {
              parentState.firstUnreaped++;
            }
          })
          .build();
      Program sleepForChild = Program.named("do_wait")
          .op(Ops.schedule())
          .run(t -> parentState.waiting = false)
          .build();
      Program wait = Program.named("SyS_wait4")
          .work(costs.syscallNs(), "system_call")
          .op(tasklistLock.lock(LockMode.READ_LOCK))
          .op(new ScanChildren())
          .op(tasklistLock.unlock(LockMode.READ_LOCK))
          .branch(t -> parentState.found, release, sleepForChild)
          .build();
      this.parent = Program.named("bench_sched_messaging")
          .loopWhile(t -> parentState.forked < members.length, fork)
          .run(t -> parentState.waiting = true)
          .op(new SleepUntil(t -> ready == members.length))
          .run(t -> {
            parentState.waiting = false;
            started = true;
            startNs = machine.sim().now();
          })
          .work(costs.syscallNs() + costs.pipeWriteNs(), "pipe_write")
          .loopWhile(t -> parentState.woken < members.length, wakeOne)
          .loopWhile(t -> parentState.reaped < members.length, wait)
          .run(t -> endNs = machine.sim().now())
          .build();
    }
  }

  /**
   * Pipe ends a child still holds when it exits, closed by {@code exit_files} (kernel/exit.c,
   * after exit_mm) in fd order. tools/perf/bench/sched-messaging.c opens the ready and wakeup
   * pipes ({@code fdpair(readyfds); fdpair(wakefds)}) before forking anyone and never closes them
   * in the parent, so every child inherits both ends of both; then, from {@code group()}, a sender
   * holds the write ends of all {@code fds} pipes of its group, and receiver {@code i} the write
   * ends of the group's pipes 0..i-1 (the parent still held them when it forked it; its own write
   * end it closes at start) and its own read end.
   */
  private int heldPipes(Member m) {
    return 4 + (m.sender ? config.fds() : m.index + 1);
  }

  private Pipe heldPipe(Member m, int k) {
    if (k < 4) {
      return k < 2 ? readyPipe : wakePipe;
    }
    return pipes[m.group * config.fds() + (k - 4)];
  }

  /**
   * The lock of the {@code k}-th address-space operation of a fork or exit, in VMA address order
   * ({@link #vmaOrder}).
   */
  private int lockIndex(int k) {
    return config.threads() ? 0 : vmaOrder[k];
  }

  /**
   * The rwsem of every address-space operation of a fork or exit, in the order the kernel walks
   * the VMAs: {@code dup_mmap} (kernel/fork.c) and {@code free_pgtables} (mm/memory.c, from
   * {@code exit_mmap}) both go through {@code mm->mmap} in address order, and for each VMA take
   * its anon_vma root first ({@code anon_vma_fork} before the i_mmap insert; {@code
   * unlink_anon_vmas} before {@code unlink_file_vma}). A mapped file's VMAs are adjacent (text,
   * read-only data, relro, data), so its i_mmap rwsem is taken {@code vmasPerFile} times in a
   * row; the written data VMA of file {@code f} (its last VMA) carries the anonymous VMA {@code
   * f}. Anonymous VMAs beyond one per file (heap, stack) come last. Simplification: the heap lies
   * right after the binary's bss in the real layout.
   */
  static int[] vmaOrder(SchedMessagingConfig c) {
    int files = c.mappedFiles();
    int perFile = c.vmasPerFile();
    int anon = c.anonVmas();
    int[] order = new int[files * perFile + anon];
    int k = 0;
    int attached = perFile > 0 ? Math.min(files, anon) : 0;
    for (int f = 0; f < files; f++) {
      for (int v = 0; v < perFile; v++) {
        if (v == perFile - 1 && f < attached) {
          order[k++] = files + f; // unlink_anon_vmas / anon_vma_fork of the data VMA
        }
        order[k++] = f;
      }
    }
    for (int a = attached; a < anon; a++) {
      order[k++] = files + a;
    }
    return order;
  }

  /**
   * {@code ns} scaled by a uniform factor in [0.5, 1.5) from the workload's own random stream:
   * the system call entry path varies with cache and TLB state, and without any such variation
   * the whole run would be one deterministic trajectory per configuration.
   */
  private long jittered(long ns) {
    return (long) (ns * (0.5 + jitter.nextDouble()));
  }

  private static Member member(Task t) {
    return (Member) t.userData;
  }

  private static Task takeReader(Pipe p) {
    Task r = p.readerSleeper;
    p.readerSleeper = null;
    return r;
  }

  /** mutex_lock/mutex_unlock of the task's current pipe. */
  private static final class PipeMutex extends Op {
    private final boolean lock;

    PipeMutex(boolean lock) {
      this.lock = lock;
    }

    @Override
    public int execute(Task t, int phase) {
      KernelLock m = member(t).pipe.mutex;
      return (lock ? m.lock(LockMode.SLEEPING) : m.unlock(LockMode.SLEEPING)).execute(t, phase);
    }

    @Override
    public String toString() {
      return lock ? "__pipe_lock" : "__pipe_unlock";
    }
  }

  /** down_write/up_write of the VMA's file i_mmap rwsem (or the thread's mmap_sem). */
  private final class MmLock extends Op {
    private final boolean lock;

    MmLock(boolean lock) {
      this.lock = lock;
    }

    @Override
    public int execute(Task t, int phase) {
      KernelLock l = t == parent ? parentState.mmLock : member(t).mmLock;
      return (lock ? l.lock(LockMode.WRITE) : l.unlock(LockMode.WRITE)).execute(t, phase);
    }

    @Override
    public String toString() {
      return lock ? "i_mmap_lock_write" : "i_mmap_unlock_write";
    }
  }

  /**
   * An insert into or removal from the file's i_mmap interval tree (an rbtree of every VMA that
   * maps the file, across all processes): a fixed part plus one cache-missing level per doubling
   * of the tree, so the hold time of the i_mmap rwsem grows with the number of processes that
   * map the file.
   */
  private final class TreeWork extends Op {
    private final boolean insert;
    private final String symbolName;
    private int symbol = -1;

    TreeWork(boolean insert, String symbolName) {
      this.insert = insert;
      this.symbolName = symbolName;
    }

    @Override
    public int execute(Task t, int phase) {
      if (phase == 0) {
        if (symbol < 0) {
          symbol = machine.symbols().symbol(symbolName, Machine.DOMAIN_KERNEL);
        }
        int file = lockIndex(t == parent ? parentState.vma : member(t).vma);
        int n = treeSize[file];
        treeSize[file] = insert ? n + 1 : Math.max(0, n - 1);
        int levels = 32 - Integer.numberOfLeadingZeros(Math.max(1, n));
        t.startWork(costs.vmaTreeNs() + levels * costs.vmaTreeLevelNs(), symbol, false);
        return AGAIN;
      }
      return NEXT;
    }
  }

  /** Sleeps (INTERRUPTIBLE) until {@code condition} holds; a waker must wake the task. */
  private static final class SleepUntil extends Op {
    private final Predicate<Task> condition;

    SleepUntil(Predicate<Task> condition) {
      this.condition = condition;
    }

    @Override
    public int execute(Task t, int phase) {
      t.setState(TaskState.INTERRUPTIBLE);
      if (condition.test(t)) {
        t.setState(TaskState.RUNNING);
        return NEXT;
      }
      t.scheduleNow();
      return AGAIN;
    }
  }

  /**
   * do_wait_thread for perf's {@code wait(&status)} (any child): wait_consider_task over the
   * children list — the unreaped children in creation order — up to the first zombie, or over
   * the whole list when there is none (then the parent sleeps until the next exit).
   */
  private final class ScanChildren extends Op {
    private int symbol = -1;

    @Override
    public int execute(Task t, int phase) {
      if (phase == 0) {
        if (symbol < 0) {
          symbol = machine.symbols().symbol("wait_consider_task", Machine.DOMAIN_KERNEL);
        }
        int scanned = 0;
        parentState.target = -1;
        for (int i = parentState.firstUnreaped; i < members.length; i++) {
          Member m = members[i];
          if (m.reaped) {
            continue;
          }
          scanned++;
          if (m.zombie) {
            parentState.target = i;
            break;
          }
        }
        parentState.found = parentState.target >= 0;
        parentScans++;
        childrenScanned += scanned;
        if (!parentState.found) {
          // add_wait_queue + set_current_state before the scan: an exit during it is not lost
          parentState.waiting = true;
          t.setState(TaskState.INTERRUPTIBLE);
        }
        long ns = scanned * costs.waitConsiderNs();
        if (ns > 0) {
          t.startWork(ns, symbol, false);
          return AGAIN;
        }
      }
      return NEXT;
    }
  }

  // ---------------------------------------------------------------------------------------
  // Results.

  /** Whether every child has been reaped. */
  @Override
  public boolean finished() {
    return endNs >= 0;
  }

  /** The benchmark ends once the parent has reaped every child. */
  @Override
  public boolean finishes() {
    return true;
  }

  /** When the parent reaped the last child (ns), or -1. */
  @Override
  public long finishedNs() {
    return endNs;
  }

  /** Whether the parent has started the children. */
  public boolean running() {
    return started;
  }

  /** When the parent started the children (ns), or -1. */
  public long startNs() {
    return startNs;
  }

  /** perf's "Total time": start to last reap, in ns; -1 until finished. */
  public long totalTimeNs() {
    return endNs < 0 ? -1 : endNs - startNs;
  }

  public int exited() {
    return exited;
  }

  public long messagesWritten() {
    return messagesWritten;
  }

  public long messagesRead() {
    return messagesRead;
  }

  /** Messages the benchmark writes in total. */
  public long messagesTotal() {
    return (long) config.groups() * config.fds() * config.fds() * config.loops();
  }

  @Override
  public void resetStats() {
    readerSleeps = 0;
    writerSleeps = 0;
    parentScans = 0;
    childrenScanned = 0;
  }

  @Override
  public ImmutableMap<String, Number> figures() {
    return ImmutableMap.<String, Number>builder()
        .put("total_time_s", finished() ? totalTimeNs() / 1e9 : -1.0)
        .put("tasks", config.tasks())
        .put("messages_written", messagesWritten)
        .put("messages_read", messagesRead)
        .put("exited", exited)
        .put("first_exit_s", firstExitNs < 0 || startNs < 0 ? -1.0 : (firstExitNs - startNs) / 1e9)
        .put("last_exit_s", lastExitNs < 0 || startNs < 0 ? -1.0 : (lastExitNs - startNs) / 1e9)
        .put("reader_sleeps", readerSleeps)
        .put("writer_sleeps", writerSleeps)
        .put("wait4_scans", parentScans)
        .put("children_scanned", childrenScanned)
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

package org.lockvisor.workloads.schedmessaging;

import java.util.ArrayDeque;
import java.util.SplittableRandom;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockFactory.LockKind;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Task;
import org.lockvisor.machine.TaskAttachment;
import org.lockvisor.workloads.spi.WorkloadContext;

/**
 * The kernel objects and processes of one {@code perf bench sched messaging} run ({@link
 * SchedMessagingWorkload}): the pipes with their mutexes and wait queues, the address space's
 * mapping locks and the layout of its VMAs, {@code tasklist_lock}, the children and the parent,
 * and the counters the results report. The programs ({@link SchedMessagingPrograms}) and ops
 * ({@link SchedMessagingOps}) of the benchmark read and change it; each child task carries its
 * {@link Member} as its attachment.
 */
final class SchedMessagingState {
  /** A child's state, attached to its task. */
  static final TaskAttachment<Member> MEMBER = TaskAttachment.of("sched-messaging child", Member.class);

  final SchedMessagingConfig config;
  SchedMessagingCosts costs;

  Machine machine;
  Kernel guest;
  Pipe[] pipes;
  Pipe readyPipe;
  Pipe wakePipe;
  KernelLock[] mmLocks;
  int[] treeSize;
  AddressSpaceLayout layout;
  int[] vmaOrder;
  SplittableRandom jitter;
  /** The what-if stream of per-VMA cost noise (null when vma-cost-jitter is 0). */
  SplittableRandom vmaJitter;
  KernelLock tasklistLock;
  Member[] members;
  /** The benchmark's parent process (null until the workload starts). */
  Task parent;
  Parent parentState;
  int ready;
  boolean started;
  long startNs = -1;
  long endNs = -1;
  int exited;
  long firstExitNs = -1;
  long lastExitNs = -1;
  long messagesWritten;
  long messagesRead;
  long readerSleeps;
  long writerSleeps;
  long anonVmaRelocks;
  long parentScans;
  long childrenScanned;

  /** One pipe: its mutex, its buffered messages and who sleeps on its wait queue. */
  static final class Pipe {
    final KernelLock mutex;
    int messages;
    Task readerSleeper;
    final ArrayDeque<Task> writerSleepers = new ArrayDeque<>(2);

    Pipe(KernelLock mutex) {
      this.mutex = mutex;
    }
  }

  /** Per-child state. */
  static final class Member {
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
  static final class Parent {
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

  SchedMessagingState(SchedMessagingConfig config, SchedMessagingCosts costs) {
    this.config = config;
    this.costs = costs;
  }

  /**
   * Creates the kernel objects of the benchmark in {@code context}'s guest, taking every lock from
   * the context's lock provider; {@code name} names the workload's random stream.
   */
  void create(WorkloadContext context, String name) {
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
    layout = config.layout(AddressSpaceLayout.unwindArch(context.costs().arch()));
    if (config.threads()) {
      mmLocks = new KernelLock[] {context.locks().create(guest, "mm.mmap_sem", LockKind.RWSEM)};
    } else {
      int files = layout.files().size();
      mmLocks = new KernelLock[layout.locks()];
      for (int f = 0; f < files; f++) {
        mmLocks[f] = context.locks().create(guest, layout.fileLockName(f), LockKind.RWSEM);
      }
      // anon_vma_fork: the child's anon_vma of a VMA gets root = pvma->anon_vma->root, and
      // lock_anon_vma_root() write-locks that root's rwsem; the parent's anonymous VMAs each have
      // their own anon_vma (anon_vma_prepare), so there is one root rwsem per parent anon_vma,
      // shared by every child's copy of the VMAs that point at it
      for (int a = 0; a < layout.anonRoots().size(); a++) {
        mmLocks[files + a] = context.locks().create(guest, layout.anonLockName(a), LockKind.RWSEM);
      }
    }
    if (config.vmaCostJitter() > 0) {
      vmaJitter = machine.sim().streams().get(context.vm().name() + "/" + name + "/vma-cost-jitter");
    }
    treeSize = new int[mmLocks.length];
    vmaOrder = config.threads() ? new int[] {0} : layout.walk();
    tasklistLock = context.locks().create(guest, "tasklist_lock", LockKind.RWLOCK);
    members = new Member[config.tasks()];
    for (int g = 0; g < groups; g++) {
      for (int i = 0; i < fds; i++) {
        members[g * 2 * fds + i] = new Member(g, i, false);
        members[g * 2 * fds + fds + i] = new Member(g, i, true);
      }
    }
    parentState = new Parent();
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
  int heldPipes(Member m) {
    return 4 + (m.sender ? config.fds() : m.index + 1);
  }

  Pipe heldPipe(Member m, int k) {
    if (k < 4) {
      return k < 2 ? readyPipe : wakePipe;
    }
    return pipes[m.group * config.fds() + (k - 4)];
  }

  /** Whether the {@code k}-th address-space operation is an anonymous VMA's (its root anon_vma rwsem). */
  boolean isAnon(int k) {
    return !config.threads() && lockIndex(k) >= layout.files().size();
  }

  /** anon_vma_free's test for the exiting child's anonymous VMA: is the root rwsem locked now? */
  boolean relockOnFree(Member m) {
    if (isAnon(m.vma) && isLocked(m.mmLock)) {
      anonVmaRelocks++;
      return true;
    }
    return false;
  }

  /** rwsem_is_locked: held by a writer or by readers. */
  static boolean isLocked(KernelLock l) {
    return l.owner() != null || l.readers() > 0;
  }

  /** Address-space steps of a fork or exit (one for a thread's mmap_sem). */
  int mmOps() {
    return vmaOrder.length;
  }

  /**
   * The what-if noise of one per-VMA step: {@code ns} times a uniform draw from [1 - j, 1 + j)
   * of the workload's vma-cost-jitter stream; {@code ns} itself when the what-if is off. The
   * order of the walk is untouched.
   */
  long vmaJittered(long ns) {
    if (vmaJitter == null) {
      return ns;
    }
    double j = config.vmaCostJitter();
    return Math.max(0, Math.round(ns * (1 - j + 2 * j * vmaJitter.nextDouble())));
  }

  /**
   * The lock of the {@code k}-th address-space operation of a fork or exit: the walk of the
   * address space's VMAs in address order ({@link AddressSpaceLayout#walk}).
   */
  int lockIndex(int k) {
    return config.threads() ? 0 : vmaOrder[k];
  }

  /**
   * {@code ns} scaled by a uniform factor in [0.5, 1.5) from the workload's own random stream:
   * the system call entry path varies with cache and TLB state, and without any such variation
   * the whole run would be one deterministic trajectory per configuration.
   */
  long jittered(long ns) {
    return (long) (ns * (0.5 + jitter.nextDouble()));
  }

  /** The child a task of the benchmark is. */
  static Member member(Task t) {
    return MEMBER.get(t);
  }

  static Task takeReader(Pipe p) {
    Task r = p.readerSleeper;
    p.readerSleeper = null;
    return r;
  }
}

package org.lockvisor.workloads.schedmessaging;

import static org.lockvisor.workloads.schedmessaging.SchedMessagingState.member;

import java.util.function.Predicate;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Op;
import org.lockvisor.machine.Task;
import org.lockvisor.machine.TaskState;
import org.lockvisor.workloads.schedmessaging.SchedMessagingState.Member;

/**
 * The ops of {@code perf bench sched messaging} that the generic ones ({@link
 * org.lockvisor.machine.Ops}) do not cover: the current pipe's mutex, the mapping lock of the VMA
 * being linked or unlinked, the i_mmap interval tree's work growing with its size, sleeping until
 * a condition, and the parent's scan of its children in {@code do_wait}.
 */
final class SchedMessagingOps {

  private SchedMessagingOps() {}

  /** mutex_lock/mutex_unlock of the task's current pipe. */
  static final class PipeMutex extends Op {
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
  static final class MmLock extends Op {
    private final SchedMessagingState s;
    private final boolean lock;

    MmLock(SchedMessagingState s, boolean lock) {
      this.s = s;
      this.lock = lock;
    }

    @Override
    public int execute(Task t, int phase) {
      KernelLock l = t == s.parent ? s.parentState.mmLock : member(t).mmLock;
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
  static final class TreeWork extends Op {
    private final SchedMessagingState s;
    private final boolean insert;
    private final String symbolName;
    private int symbol = -1;

    TreeWork(SchedMessagingState s, boolean insert, String symbolName) {
      this.s = s;
      this.insert = insert;
      this.symbolName = symbolName;
    }

    @Override
    public int execute(Task t, int phase) {
      if (phase == 0) {
        if (symbol < 0) {
          symbol = s.machine.symbols().symbol(symbolName, Machine.DOMAIN_KERNEL);
        }
        int file = s.lockIndex(t == s.parent ? s.parentState.vma : member(t).vma);
        int n = s.treeSize[file];
        s.treeSize[file] = insert ? n + 1 : Math.max(0, n - 1);
        int levels = 32 - Integer.numberOfLeadingZeros(Math.max(1, n));
        t.startWork(s.vmaJittered(s.costs.vmaTreeNs() + levels * s.costs.vmaTreeLevelNs()), symbol, false);
        return AGAIN;
      }
      return NEXT;
    }
  }

  /** Sleeps (INTERRUPTIBLE) until {@code condition} holds; a waker must wake the task. */
  static final class SleepUntil extends Op {
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
   * the whole list when there is none (then the parent sleeps until the next exit). 4.8
   * kernel/exit.c: {@code do_wait} takes {@code read_lock(&tasklist_lock)} and calls {@code
   * do_wait_thread}, which walks {@code list_for_each_entry(p, &tsk->children, sibling)} and
   * returns at the first non-zero {@code wait_consider_task} — a zombie, which {@code
   * wait_task_zombie} reaps; a live child returns 0 ({@code wait_task_stopped} and {@code
   * wait_task_continued} return at once for wait4 without WUNTRACED/WCONTINUED). copy_process
   * adds each child with {@code list_add_tail(&p->sibling, &p->real_parent->children)}
   * (creation order) and release_task's {@code __unhash_process} unlinks it ({@code
   * list_del_init(&p->sibling)}).
   */
  static final class ScanChildren extends Op {
    private final SchedMessagingState s;
    private final int[] scanned = new int[1];
    private int symbol = -1;

    ScanChildren(SchedMessagingState s) {
      this.s = s;
    }

    @Override
    public int execute(Task t, int phase) {
      if (phase == 0) {
        if (symbol < 0) {
          symbol = s.machine.symbols().symbol("wait_consider_task", Machine.DOMAIN_KERNEL);
        }
        s.parentState.target = scan(s.members, s.parentState.firstUnreaped, scanned);
        s.parentState.found = s.parentState.target >= 0;
        s.parentScans++;
        s.childrenScanned += scanned[0];
        if (!s.parentState.found) {
          // add_wait_queue + set_current_state before the scan: an exit during it is not lost
          s.parentState.waiting = true;
          t.setState(TaskState.INTERRUPTIBLE);
        }
        long ns = scanned[0] * s.costs.waitConsiderNs();
        if (ns > 0) {
          t.startWork(ns, symbol, false);
          return AGAIN;
        }
      }
      return NEXT;
    }
  }

  /**
   * The walk of do_wait_thread over {@code members} (creation order) from index {@code from}:
   * reaped children are no longer on the list; every other child is one wait_consider_task, and
   * the walk stops at the first zombie. Returns that zombie's index, or -1 when the walk found
   * none; {@code scanned[0]} is set to the number of children considered.
   */
  static int scan(SchedMessagingState.Member[] members, int from, int[] scanned) {
    int n = 0;
    for (int i = from; i < members.length; i++) {
      SchedMessagingState.Member m = members[i];
      if (m.reaped) {
        continue;
      }
      n++;
      if (m.zombie) {
        scanned[0] = n;
        return i;
      }
    }
    scanned[0] = n;
    return -1;
  }
}

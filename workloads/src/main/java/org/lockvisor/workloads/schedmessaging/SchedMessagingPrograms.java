package org.lockvisor.workloads.schedmessaging;

import static org.lockvisor.workloads.schedmessaging.SchedMessagingState.member;
import static org.lockvisor.workloads.schedmessaging.SchedMessagingState.takeReader;

import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.machine.Ops;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.TaskState;
import org.lockvisor.workloads.schedmessaging.SchedMessagingState.Member;

/**
 * The programs of {@code perf bench sched messaging} (see {@link SchedMessagingWorkload} for the
 * kernel paths they follow): {@code pipe_write} and {@code pipe_read} with their {@code
 * pipe_wait}, the child's exit ({@code exit_mmap}, {@code exit_files}, {@code exit_notify}), and
 * the parent's fork ({@code dup_mmap}, {@code anon_vma_fork}), start and {@code wait4} loop. They
 * are built once per run over its {@link SchedMessagingState}.
 */
final class SchedMessagingPrograms {
  /** A child: COW faults, ready, wait for the start, send or receive, exit. */
  final Program child;
  /** The parent: fork everyone, wait until ready, start, reap in creation order. */
  final Program parent;

  SchedMessagingPrograms(SchedMessagingState s) {
    int mmOps = s.mmOps();
    long copy = s.costs.copyNs(s.config.dataSize());

    // pipe_write
    Program writerWait = Program.named("pipe_wait")
        .op(Ops.wake(t -> takeReader(member(t).pipe)))
        .run(t -> {
          Member m = member(t);
          t.setState(TaskState.INTERRUPTIBLE);
          m.pipe.writerSleepers.addLast(t);
          s.writerSleeps++;
        })
        .op(new SchedMessagingOps.PipeMutex(false))
        .op(Ops.schedule())
        .op(new SchedMessagingOps.PipeMutex(true))
        .build();
    Program write = Program.named("SyS_write")
        .op(Ops.work(t -> s.jittered(s.costs.vfsNs()), "vfs_write"))
        .op(new SchedMessagingOps.PipeMutex(true))
        .loopWhile(t -> member(t).pipe.messages >= s.config.pipeCapacityMessages(), writerWait)
        .work(s.costs.pipeWriteNs(), "pipe_write")
        .work(copy, s.config.copySymbol())
        .run(t -> {
          member(t).pipe.messages++;
          s.messagesWritten++;
        })
        .op(new SchedMessagingOps.PipeMutex(false))
        .work(s.costs.wakeCallNs(), "__wake_up_sync_key")
        .op(Ops.wake(t -> takeReader(member(t).pipe)))
        .build();
    Program sendOne = Program.named("send_message")
        .userWork(s.costs.userNs(), "sender")
        .run(t -> {
          Member m = member(t);
          m.pipe = s.pipes[m.group * s.config.fds() + m.done % s.config.fds()];
        })
        .work(s.costs.syscallNs(), "system_call")
        .call(write)
        .run(t -> member(t).done++)
        .build();

    // pipe_read
    Program readerWait = Program.named("pipe_wait")
        .run(t -> {
          Member m = member(t);
          t.setState(TaskState.INTERRUPTIBLE);
          m.pipe.readerSleeper = t;
          s.readerSleeps++;
        })
        .op(new SchedMessagingOps.PipeMutex(false))
        .op(Ops.schedule())
        .op(new SchedMessagingOps.PipeMutex(true))
        .build();
    Program wakeWriter = Program.named("__wake_up_common")
        .op(Ops.wake(t -> member(t).pipe.writerSleepers.pollFirst()))
        .build();
    Program read = Program.named("SyS_read")
        .op(Ops.work(t -> s.jittered(s.costs.vfsNs()), "vfs_read"))
        .op(new SchedMessagingOps.PipeMutex(true))
        .loopWhile(t -> member(t).pipe.messages == 0, readerWait)
        .work(s.costs.pipeReadNs(), "pipe_read")
        .work(copy, s.config.copySymbol())
        .run(t -> {
          member(t).pipe.messages--;
          s.messagesRead++;
        })
        .op(new SchedMessagingOps.PipeMutex(false))
        // wake_up_interruptible_sync_poll: __wake_up_common walks the waiters queued now, under
        // the wait-queue lock that a woken writer's prepare_to_wait needs to queue again, so a
        // writer that wakes, finds the pipe still full and sleeps again is not woken twice
        .run(t -> member(t).wakeBudget = member(t).pipe.writerSleepers.size())
        .loopWhile(t -> member(t).wakeBudget-- > 0 && !member(t).pipe.writerSleepers.isEmpty(), wakeWriter)
        .build();
    Program receiveOne = Program.named("receive_message")
        .userWork(s.costs.userNs(), "receiver")
        .work(s.costs.syscallNs(), "system_call")
        .call(read)
        .run(t -> member(t).done++)
        .build();

    // exit
    // anon_vma_free (mm/rmap.c, 4.8): unlink_anon_vmas' second loop puts the child's own,
    // now empty anon_vma; freeing it write-locks and unlocks the root's rwsem if that is locked
    // at the moment (rwsem_is_locked), to wait out a page_lock_anon_vma_read holder
    Program anonVmaFree = Program.named("anon_vma_free")
        .op(new SchedMessagingOps.MmLock(s, true))
        .op(new SchedMessagingOps.MmLock(s, false))
        .build();
    Program unlinkVma = Program.named("unlink_file_vma")
        .run(t -> {
          Member m = member(t);
          m.mmLock = s.mmLocks[s.lockIndex(m.vma)];
        })
        .op(new SchedMessagingOps.MmLock(s, true))
        .op(new SchedMessagingOps.TreeWork(s, false, "vma_interval_tree_remove"))
        .op(new SchedMessagingOps.MmLock(s, false))
        .branch(t -> s.relockOnFree(member(t)), anonVmaFree, null)
        .run(t -> member(t).vma++)
        .build();
    Program.Builder exit = Program.named("do_exit");
    if (!s.config.threads()) {
      exit.run(t -> member(t).vma = 0)
          .loopWhile(t -> member(t).vma < mmOps, unlinkVma)
          .work(s.costs.exitTeardownNs(), "unmap_page_range");
      Program release = Program.named("pipe_release")
          .run(t -> {
            Member m = member(t);
            m.pipe = s.heldPipe(m, m.closed);
          })
          .op(new SchedMessagingOps.PipeMutex(true))
          .work(s.costs.wakeCallNs(), "__wake_up_sync_key")
          .op(Ops.wake(t -> takeReader(member(t).pipe)))
          .run(t -> member(t).wakeBudget = member(t).pipe.writerSleepers.size())
          .loopWhile(t -> member(t).wakeBudget-- > 0 && !member(t).pipe.writerSleepers.isEmpty(), wakeWriter)
          .op(new SchedMessagingOps.PipeMutex(false))
          .work(s.costs.vfsNs(), "__fput")
          .run(t -> member(t).closed++)
          .build();
      exit.run(t -> member(t).closed = 0)
          .loopWhile(t -> member(t).closed < s.heldPipes(member(t)), release);
    }
    exit.op(s.tasklistLock.lock(LockMode.WRITE_LOCK_IRQ))
        .work(s.costs.exitNotifyNs(), "exit_notify")
        .run(t -> {
          member(t).zombie = true;
          s.exited++;
          s.lastExitNs = s.machine.sim().now();
          if (s.firstExitNs < 0) {
            s.firstExitNs = s.lastExitNs;
          }
        })
        .op(s.tasklistLock.unlock(LockMode.WRITE_LOCK_IRQ))
        .op(Ops.wake(t -> s.parentState.waiting ? s.parent : null));
    Program exitPath = exit.build();

    // the child: COW faults, ready, wait for the start, work, exit
    Program.Builder cb = Program.named("sched-messaging");
    if (!s.config.threads() && s.costs.cowFaults() > 0) {
      // do_wp_page -> wp_page_copy -> copy_user_highpage: each fault copies one whole PAGE_SIZE
      // page (64 KiB on a ppc64 kernel with CONFIG_PPC_64K_PAGES)
      cb.work((s.costs.cowFaultNs() + s.costs.copyNs(s.config.pageSize())) * s.costs.cowFaults(), s.config.copyPageSymbol());
    }
    this.child = cb
        .run(t -> s.ready++)
        .op(Ops.wake(t -> s.ready == s.members.length && s.parentState.waiting ? s.parent : null))
        .op(new SchedMessagingOps.SleepUntil(t -> s.started))
        .loopWhile(t -> member(t).sender && member(t).done < s.config.loops() * s.config.fds(), sendOne)
        .loopWhile(t -> !member(t).sender && member(t).done < s.config.loops() * s.config.fds(), receiveOne)
        .call(exitPath)
        .build();

    // the parent: fork everyone, wait until ready, start, reap in creation order
    // anon_vma_fork (mm/rmap.c, 4.8): after anon_vma_clone linked the child's VMA into the
    // parent's anon_vma under the root's rwsem, the child's own anon_vma (root = the parent's
    // root) is linked under anon_vma_lock_write, the same root rwsem taken a second time
    Program anonVmaLink = Program.named("anon_vma_fork")
        .op(new SchedMessagingOps.MmLock(s, true))
        .work(s.costs.vmaTreeNs(), "anon_vma_interval_tree_insert")
        .op(new SchedMessagingOps.MmLock(s, false))
        .build();
    Program linkVma = Program.named("dup_mmap")
        .run(t -> s.parentState.mmLock = s.mmLocks[s.lockIndex(s.parentState.vma)])
        .op(new SchedMessagingOps.MmLock(s, true))
        .op(new SchedMessagingOps.TreeWork(s, true, "vma_interval_tree_insert_after"))
        .op(new SchedMessagingOps.MmLock(s, false))
        .branch(t -> s.isAnon(s.parentState.vma), anonVmaLink, null)
        .run(t -> s.parentState.vma++)
        .build();
    Program fork = Program.named("_do_fork")
        .work(s.costs.copyProcessNs(), "copy_process")
        .run(t -> s.parentState.vma = 0)
        .loopWhile(t -> s.parentState.vma < mmOps, linkVma)
        .op(s.tasklistLock.lock(LockMode.WRITE_LOCK_IRQ))
        .work(s.costs.exitNotifyNs(), "copy_process")
        .op(s.tasklistLock.unlock(LockMode.WRITE_LOCK_IRQ))
        .run(t -> {
          Member m = s.members[s.parentState.forked++];
          m.task = s.guest.spawn(SchedMessagingWorkload.COMMAND, child);
          SchedMessagingState.MEMBER.set(m.task, m);
          if (!m.sender) {
            m.pipe = s.pipes[m.group * s.config.fds() + m.index];
          }
        })
        .build();
    Program wakeOne = Program.named("pollwake")
        .op(Ops.wake(t -> s.members[s.parentState.woken++].task))
        .build();
    Program release = Program.named("release_task")
        .op(s.tasklistLock.lock(LockMode.WRITE_LOCK_IRQ))
        .work(s.costs.releaseTaskNs(), "release_task")
        .op(s.tasklistLock.unlock(LockMode.WRITE_LOCK_IRQ))
        .run(t -> {
          s.members[s.parentState.target].reaped = true;
          s.parentState.reaped++;
          while (s.parentState.firstUnreaped < s.members.length && s.members[s.parentState.firstUnreaped].reaped) {
            s.parentState.firstUnreaped++;
          }
        })
        .build();
    Program sleepForChild = Program.named("do_wait")
        .op(Ops.schedule())
        .run(t -> s.parentState.waiting = false)
        .build();
    Program wait = Program.named("SyS_wait4")
        .work(s.costs.syscallNs(), "system_call")
        .op(s.tasklistLock.lock(LockMode.READ_LOCK))
        .op(new SchedMessagingOps.ScanChildren(s))
        .op(s.tasklistLock.unlock(LockMode.READ_LOCK))
        .branch(t -> s.parentState.found, release, sleepForChild)
        .build();
    this.parent = Program.named("bench_sched_messaging")
        .loopWhile(t -> s.parentState.forked < s.members.length, fork)
        .run(t -> s.parentState.waiting = true)
        .op(new SchedMessagingOps.SleepUntil(t -> s.ready == s.members.length))
        .run(t -> {
          s.parentState.waiting = false;
          s.started = true;
          s.startNs = s.machine.sim().now();
        })
        .work(s.costs.syscallNs() + s.costs.pipeWriteNs(), "pipe_write")
        .loopWhile(t -> s.parentState.woken < s.members.length, wakeOne)
        .loopWhile(t -> s.parentState.reaped < s.members.length, wait)
        .run(t -> s.endNs = s.machine.sim().now())
        .build();
  }
}

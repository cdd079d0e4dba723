package org.lockvisor.workloads.schedmessaging;

import static com.google.common.base.Preconditions.checkArgument;
import static org.lockvisor.arch.spi.CostKey.CACHELINE_XFER_SOCKET;
import static org.lockvisor.arch.spi.CostKey.MEMCPY_PER_BYTE;
import static org.lockvisor.arch.spi.CostKey.SYSCALL;

import org.lockvisor.arch.spi.ArchCosts;

/**
 * Guest CPU costs of the benchmark's kernel and user paths, in ns. Locks and the scheduler price
 * themselves; these are the work between them. All are estimates [E] for a ~2016 server core,
 * shared by every architecture unless the composition root supplies a profile value under the key
 * {@code sched-messaging.<field>} (the system call round trip and the per-byte copy come from the
 * arch profile's SYSCALL and MEMCPY_PER_BYTE).
 *
 * @param userNs user-space work per message (the sender/receiver loop and the libc wrapper)
 * @param syscallNs system call entry and exit
 * @param vfsNs vfs_write/vfs_read before the pipe mutex (fdget, rw_verify_area, fsnotify); the
 *     mean of a uniform draw in [0.5, 1.5) × this from the stream {@code <vm>/<instance>/vfs}
 * @param pipeWriteNs pipe_write under the pipe mutex outside the copy (buffer merge or a new
 *     buffer, bookkeeping)
 * @param pipeReadNs pipe_read under the pipe mutex outside the copy (buffer release)
 * @param copyFixedNs fixed part of a user copy
 * @param copyPerBytePicos per-byte cost of a user copy, in picoseconds
 * @param wakeCallNs {@code __wake_up_sync_key} with its wait-queue lock when nobody waits
 * @param copyProcessNs copy_process outside the address space (task struct, files, signals)
 * @param vmaTreeNs fixed part of an i_mmap interval-tree insert or removal under the rwsem
 * @param vmaTreeLevelNs per tree level (a cache miss on a node shared by every process)
 * @param cowFaultNs one copy-on-write fault of a child after fork without the page copy (the
 *     copy of one guest page, {@code PAGE_SIZE} bytes, is priced by {@link #copyNs})
 * @param cowFaults copy-on-write faults of a child before it is ready (stack, data, libc state)
 * @param exitTeardownNs exit_mmap outside the i_mmap rwsem (unmap, free pages and page tables)
 * @param exitNotifyNs exit_notify under tasklist_lock
 * @param releaseTaskNs release_task of a reaped child under tasklist_lock
 * @param waitConsiderNs wait_consider_task per child scanned by wait4: from the profile, one
 *     CACHELINE_XFER_SOCKET (the p->ptrace/p->state line the running child keeps writing)
 */
public record SchedMessagingCosts(
    long userNs,
    long syscallNs,
    long vfsNs,
    long pipeWriteNs,
    long pipeReadNs,
    long copyFixedNs,
    long copyPerBytePicos,
    long wakeCallNs,
    long copyProcessNs,
    long vmaTreeNs,
    long vmaTreeLevelNs,
    long cowFaultNs,
    int cowFaults,
    long exitTeardownNs,
    long exitNotifyNs,
    long releaseTaskNs,
    long waitConsiderNs) {

  /**
   * Estimates: user loop 100; syscall 100 (KERNEL-MODEL §10: 50-150); vfs entry 150; pipe work
   * under the mutex 250 each way; copy 30 + 0.1 ns/B (~10 GB/s); empty wakeup 100; copy_process
   * 20 µs; interval tree 100 + 60 per level (a same-socket cache-line transfer, KERNEL-MODEL
   * §10: 40-100); a COW fault 1.1 µs plus the copy of the page (1.5 µs with a 4 KiB page), 4 per child; exit teardown 20 µs;
   * exit_notify 500; release_task 1 µs; wait_consider_task 30 (a cache miss per child).
   */
  public static final SchedMessagingCosts ESTIMATES =
      new SchedMessagingCosts(100, 100, 150, 250, 250, 30, 100, 100, 20_000, 100, 60, 1_100, 4, 20_000, 500, 1_000, 30);

  public SchedMessagingCosts {
    checkArgument(userNs >= 0 && syscallNs >= 0 && vfsNs >= 0 && pipeWriteNs >= 0 && pipeReadNs >= 0 && copyFixedNs >= 0
        && copyPerBytePicos >= 0 && wakeCallNs >= 0 && copyProcessNs >= 0 && vmaTreeNs >= 0 && vmaTreeLevelNs >= 0 && cowFaultNs >= 0
        && cowFaults >= 0 && exitTeardownNs >= 0 && exitNotifyNs >= 0 && releaseTaskNs >= 0
        && waitConsiderNs >= 0, "sched-messaging costs must not be negative: %s", this);
  }

  /**
   * Costs from the arch profile where it prices the step (system call entry and exit, the copy
   * rate, a tree level and a wait_consider_task as a cache-line transfer from another core); the
   * rest keep the estimates.
   */
  public static SchedMessagingCosts from(ArchCosts s) {
    SchedMessagingCosts e = ESTIMATES;
    return new SchedMessagingCosts(
        e.userNs,
        s.ns(SYSCALL),
        e.vfsNs,
        e.pipeWriteNs,
        e.pipeReadNs,
        e.copyFixedNs,
        Math.round(s.table().value(MEMCPY_PER_BYTE) * 1000),
        e.wakeCallNs,
        e.copyProcessNs,
        e.vmaTreeNs,
        s.ns(CACHELINE_XFER_SOCKET),
        e.cowFaultNs,
        e.cowFaults,
        e.exitTeardownNs,
        e.exitNotifyNs,
        e.releaseTaskNs,
        // wait_consider_task of a live child (4.8 kernel/exit.c) reads p->ptrace, which shares
        // task_struct's first cache line with p->state, written by the running child at every
        // set_current_state (pipe_wait): a line transfer from another core per child. Its other
        // reads (p->exit_state, p->exit_signal in eligible_child, p->sibling.next) are lines only
        // the child's exit writes, L3 hits of a few ns left unpriced.
        s.ns(CACHELINE_XFER_SOCKET));
  }

  /** A user copy of {@code bytes}. */
  public long copyNs(int bytes) {
    return copyFixedNs + (copyPerBytePicos * bytes + 999) / 1000;
  }
}

package org.lockvisor.devices.virtioblk;

import java.util.ArrayDeque;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.machine.Ops;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Task;

/**
 * QEMU 2.0.0's main loop as each iteration runs it, for the main-loop virtio-blk device of {@link
 * QemuVmm}. Read at v2.0.0 (a9e8aeb375): {@code main-loop.c main_loop_wait -> os_host_main_loop_wait},
 * {@code async.c} (bottom halves, {@code aio_notify}, the AioContext's GSource), {@code aio-posix.c
 * aio_poll/aio_dispatch}, {@code iohandler.c}, {@code qemu-timer.c}; glib 2.40 {@code gmain.c}.
 *
 * <p>One iteration ({@code main_loop_wait}), priced by its parts:
 * <pre>
 * glib_pollfds_fill     qemu_iohandler_fill, timer deadlines, g_main_context_prepare/query  QEMU_MAIN_LOOP_PASS / 2
 *   (aio_ctx_prepare: a scheduled bottom half makes the timeout 0)
 * timeout 0 and spin_counter &lt;= MAX_MAIN_LOOP_SPIN: spin_counter++, the BQL kept
 * otherwise: spin_counter = 0, qemu_mutex_unlock_iothread, (sleep until a descriptor is ready)
 * qemu_poll_ns          ppoll over the loop's descriptors            SYSCALL + QEMU_MAIN_LOOP_POLL_FDS
 * (timeout != 0: qemu_mutex_lock_iothread)
 * glib_pollfds_poll     g_main_context_check/dispatch, qemu_iohandler_poll, timer runs      the other half
 *   aio_ctx_dispatch -> aio_poll(ctx, false): aio_bh_poll (the bottom halves scheduled when it starts),
 *     aio_dispatch: the linux-aio eventfd's handler, then the context notifier's (event_notifier_test_and_clear)
 *   qemu_iohandler_poll: the ioeventfd's handler (virtio_queue_host_notifier_read)
 * </pre>
 * Only a descriptor found readable by the iteration's poll is dispatched in it. In 2.0 {@code
 * qemu_bh_schedule} calls {@code aio_notify}, which writes the context's eventfd every time ({@code
 * event_notifier_set}; 2.1's 0ceb849bd3 "AioContext: speed up aio_notify" skips it while
 * dispatching), so every completion costs a {@code write(2)} and the next iteration a {@code read(2)}.
 * The linux-aio handler ({@code block/linux-aio.c qemu_laio_completion_cb}) reads its eventfd until
 * it is empty: two reads and one {@code io_getevents}; each completion re-enters its coroutine, which
 * schedules the request's bottom half ({@code block.c bdrv_co_do_rw -> bdrv_co_em_bh}).
 *
 * <p>Split out of {@link QemuVmm}, which builds it with the programs it runs.
 */
final class QemuMainLoop {
  /**
   * QEMU 2.0 main-loop.c {@code MAX_MAIN_LOOP_SPIN}: zero-timeout iterations (the BQL kept) before
   * {@code os_host_main_loop_wait} forces a timeout and drops the BQL.
   */
  static final int MAX_MAIN_LOOP_SPIN = 1000;

  private final VirtioBlkCosts costs;
  private final VirtioBlkStats stats;
  private final KernelLock bql;
  private final Program requestCompletion;
  private final Program ioeventfdHandler;
  private Task thread;

  // the main AioContext
  private final ArrayDeque<Object> bottomHalves = new ArrayDeque<>();
  private boolean notifierSet; // ctx->notifier written by aio_notify and not read yet
  private final ArrayDeque<VirtblkReq> aioCompletions = new ArrayDeque<>();
  private boolean ioeventfdSignalled;
  // what the iteration's poll found readable
  private boolean notifierReadable;
  private boolean laioReadable;
  private boolean ioeventfdReadable;
  private int spinCounter;
  private int bhBudget;
  private final Program program;

  /**
   * @param requestCompletion the bottom half of a completed request ({@code bdrv_co_em_bh ->
   *     virtio_blk_rw_complete}); it takes the request from the running task's {@code scratchObject}
   * @param ioeventfdHandler {@code virtio_blk_handle_output}, run when the ioeventfd fired
   */
  QemuMainLoop(VirtioBlkCosts costs, VirtioBlkStats stats, KernelLock bql, Program requestCompletion,
      Program ioeventfdHandler) {
    this.costs = costs;
    this.stats = stats;
    this.bql = bql;
    this.requestCompletion = requestCompletion;
    this.ioeventfdHandler = ioeventfdHandler;
    this.program = build();
  }

  /** The thread's program ({@code qemu_init_main_loop}, then {@code main_loop_wait} forever). */
  Program program() {
    return program;
  }

  void setThread(Task thread) {
    this.thread = thread;
  }

  Task thread() {
    return thread;
  }

  /** Bottom halves scheduled and not yet run. */
  int pendingBottomHalves() {
    return bottomHalves.size();
  }

  /** The ioeventfd of the virtqueue fired (the vCPU's {@code ioeventfd_write}). */
  void signalIoeventfd() {
    ioeventfdSignalled = true;
  }

  /** A linux-aio completion is ready for {@code io_getevents}; the iocb's eventfd wakes the loop. */
  void aioCompleted(VirtblkReq r) {
    aioCompletions.add(r);
  }

  /**
   * {@code qemu_bh_schedule} from outside the loop's own programs (tests): the bottom half
   * {@code bh} (a {@link Program}) runs in a later {@code aio_bh_poll}; the context's eventfd is
   * written, without pricing the write.
   */
  void scheduleBottomHalf(Program bh) {
    bottomHalves.add(bh);
    notifierSet = true;
  }

  private boolean anyReadable() {
    return ioeventfdSignalled || !aioCompletions.isEmpty() || notifierSet;
  }

  private Program build() {
    long pass = costs.mainLoopPassNs();
    long poll = costs.syscallNs() + costs.mainLoopPollFdsNs();
    Program snapshot = Program.named("qemu_poll_ns")
        .work(poll, "do_sys_poll")
        .run(t -> {
          notifierReadable = notifierSet;
          laioReadable = !aioCompletions.isEmpty();
          ioeventfdReadable = ioeventfdSignalled;
        })
        .build();
    // timeout 0 (a bottom half pending) and not yet MAX_MAIN_LOOP_SPIN of them: the BQL kept
    Program spinPoll = Program.named("os_host_main_loop_wait")
        .run(t -> {
          spinCounter++;
          stats.bqlHeldIterations++;
        })
        .call(snapshot)
        .build();
    Program.Builder release = Program.named("os_host_main_loop_wait")
        .run(t -> {
          if (!bottomHalves.isEmpty()) {
            stats.forcedPollTimeouts++; // spin_counter > MAX_MAIN_LOOP_SPIN: timeout = SCALE_MS
          }
          spinCounter = 0;
        });
    if (bql != null) {
      release.op(bql.unlock(LockMode.SLEEPING));
    }
    release.op(Ops.sleepUntil(null, t -> anyReadable())).call(snapshot);
    if (bql != null) {
      release.op(bql.lock(LockMode.SLEEPING));
    }
    Program releaseAndPoll = release.build();

    // qemu_bh_schedule from a coroutine: aio_notify -> event_notifier_set (a write(2) in 2.0)
    Program coroutineDone = Program.named("bdrv_co_io_em_complete")
        .run(t -> bottomHalves.add(aioCompletions.poll())) // bdrv_co_do_rw: qemu_bh_new + qemu_bh_schedule
        .work(costs.syscallNs(), "event_notifier_set")
        .run(t -> notifierSet = true)
        .build();
    Program laio = Program.named("qemu_laio_completion_cb")
        .work(costs.syscallNs(), "event_notifier_test_and_clear")
        .work(costs.syscallNs(), "io_getevents")
        .run(t -> bhBudget = aioCompletions.size()) // the events io_getevents returned
        .op(Ops.loopCall(t -> bhBudget-- > 0 ? coroutineDone : null))
        .work(costs.syscallNs(), "event_notifier_test_and_clear") // EAGAIN ends the loop
        .build();
    Program readNotifier = Program.named("event_notifier_test_and_clear")
        .work(costs.syscallNs(), "event_notifier_test_and_clear")
        .run(t -> notifierSet = false)
        .build();
    Program readIoeventfd = Program.named("virtio_queue_host_notifier_read")
        .work(costs.syscallNs(), "event_notifier_test_and_clear")
        .run(t -> ioeventfdSignalled = false)
        .call(ioeventfdHandler)
        .build();
    Program aioPoll = Program.named("aio_poll")
        .run(t -> bhBudget = bottomHalves.size()) // aio_bh_poll: the bottom halves scheduled when it starts
        .op(Ops.loopCall(t -> {
          if (bhBudget <= 0) {
            return null;
          }
          bhBudget--;
          Object bh = bottomHalves.poll();
          if (bh instanceof Program p) {
            return p;
          }
          t.scratchObject = bh;
          return requestCompletion;
        }))
        .op(Ops.call(t -> laioReadable ? laio : null)) // aio_dispatch, newest handler first
        .op(Ops.call(t -> notifierReadable ? readNotifier : null))
        .build();
    Program iteration = Program.named("main_loop_wait")
        .run(t -> stats.mainLoopIterations++)
        .work(pass / 2, "glib_pollfds_fill")
        .op(Ops.call(t -> !bottomHalves.isEmpty() && spinCounter <= MAX_MAIN_LOOP_SPIN ? spinPoll
            : releaseAndPoll))
        .work(pass - pass / 2, "glib_pollfds_poll")
        .call(aioPoll)
        .op(Ops.call(t -> ioeventfdReadable ? readIoeventfd : null)) // qemu_iohandler_poll
        .build();
    Program.Builder main = Program.named("qemu_main_loop");
    if (bql != null) {
      main.op(bql.lock(LockMode.SLEEPING)); // the main loop runs holding the BQL
    }
    return main.loopWhile(t -> true, iteration).build();
  }
}

package org.lockvisor.devices.virtioblk;

import java.util.ArrayDeque;
import org.lockvisor.devices.spi.Virtqueue;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.machine.Cpu;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Ops;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Task;
import org.lockvisor.machine.VcpuTask;

/**
 * The host half of {@link VirtioBlk}: QEMU 2.0.0's device model ({@link VirtioBlkConfig.Vmm}).
 * The main-loop device ({@code hw/block/virtio-blk.c} {@code virtio_blk_handle_output}, the loop of
 * {@code main-loop.c os_host_main_loop_wait}, completions through {@code bdrv_co_em_bh ->
 * virtio_blk_rw_complete}) or {@code x-data-plane} ({@code hw/block/dataplane/virtio-blk.c}
 * {@code handle_notify}, {@code handle_io}), the linux-aio completions of the {@link
 * StorageBackend}, and {@code virtio_notify}'s interrupt injection. The main loop's iterations are
 * {@link QemuMainLoop}. Each program's comment cites its QEMU function. It is the {@link VmmSide}
 * a {@link NotifyPath} runs against.
 *
 * <p>Split out of {@link VirtioBlk}: the ring, the locks and the interrupt to the guest come from
 * {@link VirtioBlkState}; the backend is its own.
 */
final class QemuVmm implements VmmSide {
  private final VirtioBlkState s;
  private final VirtioBlkConfig config;
  private final VirtioBlkCosts costs;
  private final Kernel host;
  private final Kernel guest;
  private final Virtqueue vq;
  private final QueuePolicy policy;
  private final VirtioBlkStats stats;
  /** The storage behind the VMM's linux-aio. */
  private final StorageBackend backend;
  private int nextIrqCpu;
  private Program handleOutput;
  /** QEMU 2.0's main loop (the main-loop device); null with x-data-plane. */
  private QemuMainLoop mainLoop;
  // QEMU 2.0 x-data-plane thread: linux-aio completions ready for io_getevents
  private final ArrayDeque<VirtblkReq> aioCompletions = new ArrayDeque<>();
  private Task ioThread;
  private boolean hostNotifierSet;
  private final ArrayDeque<VirtblkReq> ioqBatch = new ArrayDeque<>();
  private int ioqReap;

  QemuVmm(VirtioBlkState s, VirtioBlkStats stats) {
    this.s = s;
    this.config = s.config;
    this.costs = s.costs;
    this.host = s.host;
    this.guest = s.guest;
    this.vq = s.vq;
    this.policy = s.policy;
    this.stats = stats;
    this.backend = new StorageBackend(s.machine.sim(), s.vmName + "/" + s.name + "/backend", config.backendDepth(),
        config.backendServiceNs(), config.backendExponential(), this::onBackendDone);
  }

  StorageBackend backend() {
    return backend;
  }

  @Override
  public VirtioBlkCosts costs() {
    return costs;
  }

  @Override
  public KernelLock globalLock() {
    return s.bql;
  }

  /** Builds {@code virtio_blk_handle_output} (the ioeventfd handler a notify path may run). */
  void buildHandleOutput() {
    Program handleRequest = Program.named("virtio_blk_handle_request")
        .run(t -> t.scratchObject = vq.token(policy.pop(vq)))
        .work(costs.hostSubmitNs(), "laio_submit")
        .run(t -> {
          Object r = t.scratchObject;
          t.scratchObject = null;
          backend.submit(r);
        })
        .build();
    this.handleOutput = popLoop("virtio_blk_handle_output", handleRequest);
  }

  @Override
  public Program handleOutput() {
    return handleOutput;
  }

  /** Marks the ioeventfd as signalled (the main loop or the dataplane thread will pop the ring). */
  @Override
  public void signalMainLoop() {
    if (s.dataplane()) {
      hostNotifierSet = true; // the dataplane thread's host notifier (the same ioeventfd)
    } else {
      mainLoop.signalIoeventfd();
    }
  }

  /** The host thread that polls the ioeventfd: QEMU's main loop, or the dataplane thread. */
  @Override
  public Task mainLoopThread() {
    return s.dataplane() ? ioThread : mainLoop.thread();
  }

  /** Bottom halves scheduled and not yet run by QEMU's main loop. */
  int pendingBottomHalves() {
    return mainLoop == null ? 0 : mainLoop.pendingBottomHalves();
  }

  /** QEMU 2.0's main loop of the main-loop device (tests); null with x-data-plane. */
  QemuMainLoop mainLoop() {
    return mainLoop;
  }

  /** Spawns the VMM's thread on host CPU {@code cpu}. */
  void spawn(int cpu) {
    if (s.dataplane()) {
      this.ioThread = host.spawnSleeping("qemu-" + s.vmName + "/" + s.name + "-dataplane", dataplaneProgram(), cpu);
    } else {
      this.mainLoop = new QemuMainLoop(costs, stats, s.bql, completeProgram(), handleOutput);
      mainLoop.setThread(host.spawnSleeping("qemu-" + s.vmName + "/main-loop", mainLoop.program(), cpu));
    }
  }

  /**
   * One processing pass as the queue policy runs it: {@code beforePopLoop}, {@code perRequest}
   * while the ring has entries, {@code afterPopLoop}, and again while that says more arrived.
   */
  private Program popLoop(String function, Program perRequest) {
    Program again = Program.named("virtio_queue_set_notification").run(t -> policy.beforePopLoop(vq)).build();
    return Program.named(function)
        .run(t -> policy.beforePopLoop(vq))
        .op(Ops.loopCall(t -> vq.hasAvail() ? perRequest : policy.afterPopLoop(vq) ? again : null))
        .build();
  }

  /**
   * {@code virtio_notify}: {@code kvm_set_irq} on the VMM thread, then the interrupt. With a
   * level-triggered virtio-mmio line ({@code virtio_mmio_update_irq} -> {@code qemu_set_irq}),
   * the ISR bit is set and the guest is interrupted only when the line goes from low to high; the
   * ioctl is paid either way (QEMU 2.0 {@code kvm_arm_gic_set_irq} calls {@code kvm_set_irq} on
   * every update).
   */
  private Program injectProgram() {
    return Program.named("virtio_notify")
        .work(costs.interruptInjectNs(), "kvm_set_irq")
        .run(t -> {
          if (s.mmioLevel()) {
            s.isr = true;
            if (s.lineHigh) {
              return;
            }
            s.lineHigh = true;
          }
          Cpu target = interruptTarget();
          if (!config.postedInterrupts() && target.vcpuTask().hostState() == VcpuTask.HostState.IN_GUEST) {
            s.forcedExitPending[target.index()] = true; // the kick IPI exits the running vCPU
          }
          target.raiseInterrupt(s.vringInterrupt);
        })
        .build();
  }

  /**
   * The bottom half of a completed request on QEMU 2.0's main loop ({@code block.c bdrv_co_em_bh ->
   * hw/block/virtio-blk.c virtio_blk_rw_complete}: {@code virtio_blk_req_complete} pushes the used
   * entry and calls {@code virtio_notify}); the request is the running task's {@code scratchObject}
   * ({@link QemuMainLoop}'s {@code aio_bh_poll}).
   */
  private Program completeProgram() {
    Program inject = injectProgram();
    return Program.named("virtio_blk_rw_complete")
        .work(costs.hostCompleteNs(), "virtio_blk_rw_complete")
        .run(t -> {
          VirtblkReq vr = (VirtblkReq) t.scratchObject;
          t.scratchObject = null;
          vq.pushUsed(vr.head);
          t.scratch = vq.needInterrupt() ? 1 : 0;
        })
        .op(Ops.call(t -> t.scratch == 1 ? inject : null))
        .build();
  }

  /**
   * QEMU 2.0 {@code x-data-plane} ({@code hw/block/dataplane/virtio-blk.c}): {@code
   * data_plane_thread} loops in {@code aio_poll(ctx, true)} on its own AioContext, no BQL. The
   * host notifier (the ioeventfd) runs {@code handle_notify}: the queue policy's pop loop
   * ({@code vring_pop} + {@code process_request}, which only prepares an iocb with {@code ioq_rdwr})
   * and then one {@code ioq_submit} for the whole batch. The linux-aio eventfd runs {@code
   * handle_io}: {@code ioq_run_completion} ({@code io_getevents}, {@code complete_request} and
   * {@code vring_push} per event) and one {@code notify_guest} ({@code vring_should_notify}, then
   * {@code event_notifier_set} on the irqfd) for the batch, and then, if the guest has added
   * requests meanwhile ({@code vring_more_avail}), {@code handle_notify} again without a kick.
   */
  private Program dataplaneProgram() {
    Program inject = injectProgram();
    Program processRequest = Program.named("process_request")
        .run(t -> ioqBatch.add((VirtblkReq) vq.token(policy.pop(vq))))
        .work(costs.dataplaneSubmitNs(), "ioq_rdwr")
        .build();
    Program popAll = popLoop("vring_pop_loop", processRequest);
    Program ioqSubmit = Program.named("ioq_submit")
        .work(costs.syscallNs(), "io_submit")
        .run(t -> {
          stats.ioqSubmits++;
          stats.iocbsSubmitted += ioqBatch.size();
          while (!ioqBatch.isEmpty()) {
            backend.submit(ioqBatch.poll());
          }
        })
        .build();
    Program handleNotify = Program.named("handle_notify")
        .work(costs.syscallNs(), "event_notifier_test_and_clear") // read(2) of the host notifier
        .run(t -> hostNotifierSet = false)
        .call(popAll)
        .op(Ops.call(t -> ioqBatch.isEmpty() ? null : ioqSubmit))
        .build();
    Program completeRequest = Program.named("complete_request")
        .work(costs.dataplaneCompleteNs(), "vring_push")
        .run(t -> {
          ioqReap--;
          vq.pushUsed(aioCompletions.poll().head);
        })
        .build();
    Program handleIo = Program.named("handle_io")
        .work(costs.syscallNs(), "event_notifier_test_and_clear") // read(2) of the io notifier
        .work(costs.syscallNs(), "io_getevents")
        .run(t -> ioqReap = aioCompletions.size()) // the events io_getevents returned
        .op(Ops.loopCall(t -> ioqReap > 0 ? completeRequest : null))
        .op(Ops.call(t -> vq.needInterrupt() ? inject : null)) // notify_guest, once per batch
        // "If there were more requests than iovecs, the vring will not be empty yet so check again":
        // vring_more_avail -> handle_notify, whether or not the guest kicked for them
        .op(Ops.call(t -> vq.hasAvail() ? handleNotify : null))
        .build();
    // aio_poll(ctx, true) (aio-posix.c 2.0): ppoll over the context's notifier, the host notifier and
    // the io notifier (three descriptors: the system call prices it), then aio_dispatch
    Program poll = Program.named("aio_poll")
        .op(Ops.sleepUntil(null, t -> hostNotifierSet || !aioCompletions.isEmpty()))
        .work(costs.syscallNs(), "qemu_poll_ns")
        .op(Ops.call(t -> hostNotifierSet ? handleNotify : null))
        .op(Ops.call(t -> aioCompletions.isEmpty() ? null : handleIo))
        .build();
    return Program.named("data_plane_thread").loopWhile(t -> true, poll).build();
  }

  private Cpu interruptTarget() {
    if (config.irqCpu() >= 0) {
      return guest.cpu(config.irqCpu());
    }
    Cpu c = guest.cpu(nextIrqCpu);
    nextIrqCpu = (nextIrqCpu + 1) % guest.cpuCount();
    return c;
  }

  void onBackendDone(Object r) {
    if (s.dataplane()) {
      aioCompletions.add((VirtblkReq) r);
      host.wakeUpNow(ioThread, null);
    } else {
      mainLoop.aioCompleted((VirtblkReq) r);
      host.wakeUpNow(mainLoop.thread(), null);
    }
  }
}

package org.lockvisor.devices.virtioblk;

import java.util.ArrayDeque;
import org.lockvisor.machine.Cpu;
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
 * {@link QemuMainLoop}. Each program's comment cites its QEMU function.
 */
final class QemuVmm {
  private final VirtioBlk dev;
  private final VirtioBlkStats stats;
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

  QemuVmm(VirtioBlk dev) {
    this.dev = dev;
    this.stats = dev.stats;
  }

  /** Builds {@code virtio_blk_handle_output} (the ioeventfd handler a notify path may run). */
  void buildHandleOutput() {
    Program handleRequest = Program.named("virtio_blk_handle_request")
        .run(t -> t.scratchObject = dev.vq.token(dev.policy.pop(dev.vq)))
        .work(dev.costs.hostSubmitNs(), "laio_submit")
        .run(t -> {
          Object r = t.scratchObject;
          t.scratchObject = null;
          dev.backend.submit(r);
        })
        .build();
    this.handleOutput = popLoop("virtio_blk_handle_output", handleRequest);
  }

  Program handleOutput() {
    return handleOutput;
  }

  /** Marks the ioeventfd as signalled (the main loop or the dataplane thread will pop the ring). */
  void signal() {
    if (dev.dataplane()) {
      hostNotifierSet = true; // the dataplane thread's host notifier (the same ioeventfd)
    } else {
      mainLoop.signalIoeventfd();
    }
  }

  /** The host thread that polls the ioeventfd: QEMU's main loop, or the dataplane thread. */
  Task thread() {
    return dev.dataplane() ? ioThread : mainLoop.thread();
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
  void spawn(String vmName, String deviceName, int cpu) {
    if (dev.dataplane()) {
      this.ioThread = dev.host.spawnSleeping("qemu-" + vmName + "/" + deviceName + "-dataplane", dataplaneProgram(),
          cpu);
    } else {
      this.mainLoop = new QemuMainLoop(dev.costs, stats, dev.bql, completeProgram(), handleOutput);
      mainLoop.setThread(dev.host.spawnSleeping("qemu-" + vmName + "/main-loop", mainLoop.program(), cpu));
    }
  }

  /**
   * One processing pass as the queue policy runs it: {@code beforePopLoop}, {@code perRequest}
   * while the ring has entries, {@code afterPopLoop}, and again while that says more arrived.
   */
  private Program popLoop(String function, Program perRequest) {
    Program again = Program.named("virtio_queue_set_notification").run(t -> dev.policy.beforePopLoop(dev.vq)).build();
    return Program.named(function)
        .run(t -> dev.policy.beforePopLoop(dev.vq))
        .op(Ops.loopCall(t -> dev.vq.hasAvail() ? perRequest : dev.policy.afterPopLoop(dev.vq) ? again : null))
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
        .work(dev.costs.interruptInjectNs(), "kvm_set_irq")
        .run(t -> {
          if (dev.mmioLevel()) {
            dev.isr = true;
            if (dev.lineHigh) {
              return;
            }
            dev.lineHigh = true;
          }
          Cpu target = interruptTarget();
          if (!dev.config.postedInterrupts() && target.vcpuTask().hostState() == VcpuTask.HostState.IN_GUEST) {
            dev.forcedExitPending[target.index()] = true; // the kick IPI exits the running vCPU
          }
          target.raiseInterrupt(dev.vringInterrupt);
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
        .work(dev.costs.hostCompleteNs(), "virtio_blk_rw_complete")
        .run(t -> {
          VirtblkReq vr = (VirtblkReq) t.scratchObject;
          t.scratchObject = null;
          dev.vq.pushUsed(vr.head);
          t.scratch = dev.vq.needInterrupt() ? 1 : 0;
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
        .run(t -> ioqBatch.add((VirtblkReq) dev.vq.token(dev.policy.pop(dev.vq))))
        .work(dev.costs.dataplaneSubmitNs(), "ioq_rdwr")
        .build();
    Program popAll = popLoop("vring_pop_loop", processRequest);
    Program ioqSubmit = Program.named("ioq_submit")
        .work(dev.costs.syscallNs(), "io_submit")
        .run(t -> {
          stats.ioqSubmits++;
          stats.iocbsSubmitted += ioqBatch.size();
          while (!ioqBatch.isEmpty()) {
            dev.backend.submit(ioqBatch.poll());
          }
        })
        .build();
    Program handleNotify = Program.named("handle_notify")
        .work(dev.costs.syscallNs(), "event_notifier_test_and_clear") // read(2) of the host notifier
        .run(t -> hostNotifierSet = false)
        .call(popAll)
        .op(Ops.call(t -> ioqBatch.isEmpty() ? null : ioqSubmit))
        .build();
    Program completeRequest = Program.named("complete_request")
        .work(dev.costs.dataplaneCompleteNs(), "vring_push")
        .run(t -> {
          ioqReap--;
          dev.vq.pushUsed(aioCompletions.poll().head);
        })
        .build();
    Program handleIo = Program.named("handle_io")
        .work(dev.costs.syscallNs(), "event_notifier_test_and_clear") // read(2) of the io notifier
        .work(dev.costs.syscallNs(), "io_getevents")
        .run(t -> ioqReap = aioCompletions.size()) // the events io_getevents returned
        .op(Ops.loopCall(t -> ioqReap > 0 ? completeRequest : null))
        .op(Ops.call(t -> dev.vq.needInterrupt() ? inject : null)) // notify_guest, once per batch
        // "If there were more requests than iovecs, the vring will not be empty yet so check again":
        // vring_more_avail -> handle_notify, whether or not the guest kicked for them
        .op(Ops.call(t -> dev.vq.hasAvail() ? handleNotify : null))
        .build();
    // aio_poll(ctx, true) (aio-posix.c 2.0): ppoll over the context's notifier, the host notifier and
    // the io notifier (three descriptors: the system call prices it), then aio_dispatch
    Program poll = Program.named("aio_poll")
        .op(Ops.sleepUntil(null, t -> hostNotifierSet || !aioCompletions.isEmpty()))
        .work(dev.costs.syscallNs(), "qemu_poll_ns")
        .op(Ops.call(t -> hostNotifierSet ? handleNotify : null))
        .op(Ops.call(t -> aioCompletions.isEmpty() ? null : handleIo))
        .build();
    return Program.named("data_plane_thread").loopWhile(t -> true, poll).build();
  }

  private Cpu interruptTarget() {
    if (dev.config.irqCpu() >= 0) {
      return dev.guest.cpu(dev.config.irqCpu());
    }
    Cpu c = dev.guest.cpu(nextIrqCpu);
    nextIrqCpu = (nextIrqCpu + 1) % dev.guest.cpuCount();
    return c;
  }

  void onBackendDone(Object r) {
    if (dev.dataplane()) {
      aioCompletions.add((VirtblkReq) r);
      dev.host.wakeUpNow(ioThread, null);
    } else {
      mainLoop.aioCompleted((VirtblkReq) r);
      dev.host.wakeUpNow(mainLoop.thread(), null);
    }
  }
}

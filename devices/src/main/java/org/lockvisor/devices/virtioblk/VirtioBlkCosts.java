package org.lockvisor.devices.virtioblk;

import static com.google.common.base.Preconditions.checkArgument;

import org.lockvisor.devices.spi.CostSource;

/**
 * The CPU costs of the virtio-blk paths, in ns. Defaults are the estimates of KERNEL-MODEL.md
 * section 10 (tag [E]: ranges to calibrate, not measurements); the composition root fills them
 * from the arch profile through {@link #from(CostSource)} under the keys {@code virtio-blk.<field>}.
 * None is fitted to a reproduction's throughput. Costs that try_to_wake_up, locks, the hardware
 * exit/entry round trip ({@code HypervisorConfig.exitRoundtripNs}) and context switches already
 * price are not repeated here.
 *
 * @param requestSetupNs guest {@code virtio_queue_rq} before vq_lock: command header and
 *     {@code blk_rq_map_sg} [E: 10 says 1000-4000 for the whole submission, 500-1500 of it under the lock]
 * @param addNs guest {@code __virtblk_add_req} / {@code virtqueue_add_sgs} under vq_lock [E: 500-1500]
 * @param kickPrepareNs guest {@code virtqueue_kick_prepare}: full barrier and read of avail_event [E]
 * @param irqEntryNs guest interrupt entry up to the virtqueue callback ({@code vring_interrupt}) [E]
 * @param completeNs guest per-request completion in {@code virtblk_done}: get_buf, {@code
 *     blk_mq_complete_request} down to {@code aio_complete}, excluding the wakeup [E]
 * @param enableCbNs guest {@code virtqueue_enable_cb} (write used_event, barrier, re-check) [E]
 * @param restartQueueNs guest {@code blk_mq_start_stopped_hw_queues}, excluding the worker wakeup [E]
 * @param ioeventfdExitNs host, x86: handling of the PIO notify in KVM ({@code kernel_pio ->
 *     kvm_io_bus_write -> ioeventfd_write -> eventfd_signal}) excluding the hardware round trip and
 *     the wakeup of the VMM thread [E: 10 gives 2500 for the whole in-kernel exit incl. ~700 hardware]
 * @param userspaceExitNs host: an exit forwarded to the userspace VMM and back (KVM_EXIT_MMIO,
 *     ioctl return, vcpu_put/load, re-entry) [E: 10 gives 5000-15000 for x86; arm64 2014 unmeasured]
 * @param mmioDispatchNs host, userspace VMM: memory-region dispatch to the virtio notify handler [E]
 * @param hostSubmitNs host VMM per request: {@code virtqueue_pop}, {@code
 *     virtio_blk_handle_request}, linux-aio {@code io_submit} [E: 10 gives 5000-10000 per request for
 *     submission plus completion; 10 marks its 7000 centre as fitted to R2 x86, so treat as provisional]
 * @param hostCompleteNs host VMM per request: AIO completion, {@code virtio_blk_rw_complete},
 *     {@code virtqueue_push} [E: the rest of the same budget]
 * @param interruptInjectNs host: injecting the completion interrupt (irqfd or KVM_IRQ_LINE) [E]
 */
public record VirtioBlkCosts(
    long requestSetupNs,
    long addNs,
    long kickPrepareNs,
    long irqEntryNs,
    long completeNs,
    long enableCbNs,
    long restartQueueNs,
    long ioeventfdExitNs,
    long userspaceExitNs,
    long mmioDispatchNs,
    long hostSubmitNs,
    long hostCompleteNs,
    long interruptInjectNs) {

  /** The estimates above; see each field for its source. */
  public static final VirtioBlkCosts ESTIMATES =
      new VirtioBlkCosts(1000, 700, 50, 500, 1500, 50, 300, 1800, 8000, 1000, 4000, 3000, 1000);

  public VirtioBlkCosts {
    checkArgument(requestSetupNs >= 0 && addNs >= 0 && kickPrepareNs >= 0 && irqEntryNs >= 0 && completeNs >= 0
        && enableCbNs >= 0 && restartQueueNs >= 0 && ioeventfdExitNs >= 0 && userspaceExitNs >= 0
        && mmioDispatchNs >= 0 && hostSubmitNs >= 0 && hostCompleteNs >= 0 && interruptInjectNs >= 0,
        "virtio-blk costs must not be negative: %s", this);
  }

  /** Costs from the arch profile, each falling back to its estimate. */
  public static VirtioBlkCosts from(CostSource s) {
    VirtioBlkCosts e = ESTIMATES;
    return new VirtioBlkCosts(
        s.cost("virtio-blk.request-setup-ns", e.requestSetupNs),
        s.cost("virtio-blk.add-ns", e.addNs),
        s.cost("virtio-blk.kick-prepare-ns", e.kickPrepareNs),
        s.cost("virtio-blk.irq-entry-ns", e.irqEntryNs),
        s.cost("virtio-blk.complete-ns", e.completeNs),
        s.cost("virtio-blk.enable-cb-ns", e.enableCbNs),
        s.cost("virtio-blk.restart-queue-ns", e.restartQueueNs),
        s.cost("virtio-blk.ioeventfd-exit-ns", e.ioeventfdExitNs),
        s.cost("virtio-blk.userspace-exit-ns", e.userspaceExitNs),
        s.cost("virtio-blk.mmio-dispatch-ns", e.mmioDispatchNs),
        s.cost("virtio-blk.host-submit-ns", e.hostSubmitNs),
        s.cost("virtio-blk.host-complete-ns", e.hostCompleteNs),
        s.cost("virtio-blk.interrupt-inject-ns", e.interruptInjectNs));
  }

  public VirtioBlkCosts withUserspaceExitNs(long ns) {
    return new VirtioBlkCosts(requestSetupNs, addNs, kickPrepareNs, irqEntryNs, completeNs, enableCbNs,
        restartQueueNs, ioeventfdExitNs, ns, mmioDispatchNs, hostSubmitNs, hostCompleteNs, interruptInjectNs);
  }

  public VirtioBlkCosts withIoeventfdExitNs(long ns) {
    return new VirtioBlkCosts(requestSetupNs, addNs, kickPrepareNs, irqEntryNs, completeNs, enableCbNs,
        restartQueueNs, ns, userspaceExitNs, mmioDispatchNs, hostSubmitNs, hostCompleteNs, interruptInjectNs);
  }
}

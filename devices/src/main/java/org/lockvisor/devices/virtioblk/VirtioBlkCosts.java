package org.lockvisor.devices.virtioblk;

import static com.google.common.base.Preconditions.checkArgument;

import org.lockvisor.arch.spi.CostKey;
import org.lockvisor.arch.spi.ArchCosts;

/**
 * The CPU costs of the virtio-blk paths, in ns, derived at attach from the arch profile's cost
 * table ({@link #from(ArchCosts)}): every field comes from one {@link CostKey}, so the same code
 * path costs what {@code x86_64-kvm} or {@code arm64-kvm} says, with the source and confidence
 * the profile gives (see docs/plugins/&lt;profile&gt;.md). None is fitted to a reproduction's
 * throughput. Costs that try_to_wake_up, locks, the hardware exit/entry round trip
 * ({@code HypervisorConfig.exitRoundtripNs} = {@code VMEXIT_ROUNDTRIP}) and context switches
 * already price are subtracted or not repeated here.
 *
 * @param requestSetupNs guest {@code virtio_queue_rq} before vq_lock: {@code BLK_MQ_SUBMIT}
 * @param addNs guest {@code __virtblk_add_req} / {@code virtqueue_add_sgs} under vq_lock: {@code VIRTQUEUE_ADD}
 * @param kickPrepareNs guest {@code virtqueue_kick_prepare}: {@code VIRTQUEUE_KICK_PREPARE}
 * @param irqEntryNs guest interrupt entry up to {@code vring_interrupt}: {@code IRQ_ENTRY}
 * @param completeNs guest per-request completion in {@code virtblk_done}: {@code BLK_MQ_COMPLETE}
 * @param enableCbNs guest {@code virtqueue_enable_cb} (write used_event, full barrier, re-read the
 *     device's index): the same operations as a kick_prepare, priced {@code VIRTQUEUE_KICK_PREPARE}
 * @param restartQueueNs guest {@code blk_mq_start_stopped_hw_queues} excluding the worker wakeup:
 *     block-layer bookkeeping priced as one {@code BLK_MQ_SUBMIT}
 * @param ioeventfdExitNs host, x86: KVM's handling of the PIO notify ({@code kernel_pio ->
 *     kvm_io_bus_write -> ioeventfd_write}): {@code EXIT_IO_KERNEL} minus the hardware round trip
 *     and minus {@code TTWU_FULL}, because the machine prices the wakeup of the VMM thread itself
 * @param userspaceExitNs host: an exit forwarded to the userspace VMM and back (KVM_EXIT_MMIO,
 *     ioctl return, re-entry): {@code EXIT_USERSPACE} minus the hardware round trip
 * @param mmioDispatchNs host, userspace VMM: the notify's BQL section, lock acquire and dispatch of the MMIO
 *     notify to {@code virtio_queue_notify} (QEMU 2.0 kvm-all.c {@code kvm_cpu_exec} -> virtio-mmio.c
 *     {@code virtio_mmio_write}), request work excluded: {@code VMM_NOTIFY_BQL}
 * @param hostSubmitNs host VMM per request: {@code virtqueue_pop}, {@code
 *     virtio_blk_handle_request}, {@code io_submit}: half of {@code VMM_REQUEST_EMULATION}
 * @param hostCompleteNs host VMM per request: AIO completion, {@code virtio_blk_rw_complete},
 *     {@code virtqueue_push}: the other half
 * @param interruptInjectNs host VMM: raising the completion interrupt (irqfd write, injection and
 *     kick): {@code IRQ_INJECT}; also the {@code KVM_IRQ_LINE} ioctl that lowers a level line
 * @param syscallNs host VMM: one system call's entry and return ({@code ppoll} of a main-loop
 *     iteration, {@code io_submit}/{@code io_getevents} of a batch): {@code SYSCALL}
 * @param dataplaneSubmitNs host, 2.0 dataplane, per request: {@code vring_pop} + {@code
 *     process_request} (descriptor walk, the host mirror of the guest's add: {@code VIRTQUEUE_ADD})
 *     plus the host kernel's {@code io_submit} work per iocb ({@code fs/aio.c}, direct I/O, the
 *     same code as the guest's: {@code AIO_SUBMIT_PER_IO})
 * @param dataplaneCompleteNs host, 2.0 dataplane, per request: the host kernel's {@code
 *     io_getevents} per event ({@code AIO_REAP_PER_IO}) plus {@code complete_request}/{@code
 *     vring_push} (used-ring write, priced as one ring update: {@code VIRTQUEUE_ADD})
 * @param eoiMaintenanceNs host, the 3.15 vGIC's EOI maintenance interrupt for a level interrupt
 *     ({@code vgic_maintenance_handler}/{@code vgic_process_maintenance}): an in-kernel
 *     interrupt-controller exit, {@code EXIT_IO_KERNEL} minus the hardware round trip
 * @param registerDispatchNs host, userspace VMM: the BQL section of one virtio-mmio register access of
 *     the interrupt handler ({@code virtio_mmio_read} of the status, {@code virtio_mmio_write} of the
 *     ACK), the line update excluded: {@code VMM_MMIO_DISPATCH}
 * @param mainLoopPassNs host, QEMU 2.0 main loop: one iteration's own work outside the poll system call
 *     and the handlers ({@code main_loop_wait}: glib prepare/query/check/dispatch, iohandler fill/poll,
 *     timer lists): {@code QEMU_MAIN_LOOP_PASS}
 * @param mainLoopPollFdsNs host, QEMU 2.0 main loop: the kernel's work of one {@code ppoll} over the
 *     loop's descriptors, the system call's entry and return ({@code SYSCALL}) excluded:
 *     {@code QEMU_MAIN_LOOP_POLL_FDS}
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
    long interruptInjectNs,
    long syscallNs,
    long dataplaneSubmitNs,
    long dataplaneCompleteNs,
    long eoiMaintenanceNs,
    long registerDispatchNs,
    long mainLoopPassNs,
    long mainLoopPollFdsNs) {

  public VirtioBlkCosts {
    checkArgument(requestSetupNs >= 0 && addNs >= 0 && kickPrepareNs >= 0 && irqEntryNs >= 0 && completeNs >= 0
        && enableCbNs >= 0 && restartQueueNs >= 0 && ioeventfdExitNs >= 0 && userspaceExitNs >= 0
        && mmioDispatchNs >= 0 && hostSubmitNs >= 0 && hostCompleteNs >= 0 && interruptInjectNs >= 0
        && syscallNs >= 0 && dataplaneSubmitNs >= 0 && dataplaneCompleteNs >= 0 && eoiMaintenanceNs >= 0
        && registerDispatchNs >= 0 && mainLoopPassNs >= 0 && mainLoopPollFdsNs >= 0,
        "virtio-blk costs must not be negative: %s", this);
  }

  /** The costs of the profile behind {@code s}; see each field for its key. */
  public static VirtioBlkCosts from(ArchCosts s) {
    long roundtrip = s.ns(CostKey.VMEXIT_ROUNDTRIP);
    long emulation = s.ns(CostKey.VMM_REQUEST_EMULATION);
    return new VirtioBlkCosts(
        s.ns(CostKey.BLK_MQ_SUBMIT),
        s.ns(CostKey.VIRTQUEUE_ADD),
        s.ns(CostKey.VIRTQUEUE_KICK_PREPARE),
        s.ns(CostKey.IRQ_ENTRY),
        s.ns(CostKey.BLK_MQ_COMPLETE),
        s.ns(CostKey.VIRTQUEUE_KICK_PREPARE),
        s.ns(CostKey.BLK_MQ_SUBMIT),
        Math.max(0, s.ns(CostKey.EXIT_IO_KERNEL) - roundtrip - s.ns(CostKey.TTWU_FULL)),
        Math.max(0, s.ns(CostKey.EXIT_USERSPACE) - roundtrip),
        s.ns(CostKey.VMM_NOTIFY_BQL),
        emulation / 2,
        emulation - emulation / 2,
        s.ns(CostKey.IRQ_INJECT),
        s.ns(CostKey.SYSCALL),
        s.ns(CostKey.VIRTQUEUE_ADD) + s.ns(CostKey.AIO_SUBMIT_PER_IO),
        s.ns(CostKey.AIO_REAP_PER_IO) + s.ns(CostKey.VIRTQUEUE_ADD),
        Math.max(0, s.ns(CostKey.EXIT_IO_KERNEL) - roundtrip),
        s.ns(CostKey.VMM_MMIO_DISPATCH),
        s.ns(CostKey.QEMU_MAIN_LOOP_PASS),
        s.ns(CostKey.QEMU_MAIN_LOOP_POLL_FDS));
  }

  /**
   * One QEMU 2.0 main-loop iteration without the handlers it runs: the loop's own pass, the
   * {@code ppoll} system call and its descriptors ({@code main-loop.c main_loop_wait}).
   */
  public long mainLoopIterationNs() {
    return mainLoopPassNs + syscallNs + mainLoopPollFdsNs;
  }

  public VirtioBlkCosts withUserspaceExitNs(long ns) {
    return new VirtioBlkCosts(requestSetupNs, addNs, kickPrepareNs, irqEntryNs, completeNs, enableCbNs,
        restartQueueNs, ioeventfdExitNs, ns, mmioDispatchNs, hostSubmitNs, hostCompleteNs, interruptInjectNs,
        syscallNs, dataplaneSubmitNs, dataplaneCompleteNs, eoiMaintenanceNs, registerDispatchNs, mainLoopPassNs,
        mainLoopPollFdsNs);
  }

  /** These costs with the main loop's pass and descriptor poll replaced (tests, what-ifs). */
  public VirtioBlkCosts withMainLoop(long passNs, long pollFdsNs) {
    return new VirtioBlkCosts(requestSetupNs, addNs, kickPrepareNs, irqEntryNs, completeNs, enableCbNs,
        restartQueueNs, ioeventfdExitNs, userspaceExitNs, mmioDispatchNs, hostSubmitNs, hostCompleteNs,
        interruptInjectNs, syscallNs, dataplaneSubmitNs, dataplaneCompleteNs, eoiMaintenanceNs, registerDispatchNs,
        passNs, pollFdsNs);
  }

  public VirtioBlkCosts withIoeventfdExitNs(long ns) {
    return new VirtioBlkCosts(requestSetupNs, addNs, kickPrepareNs, irqEntryNs, completeNs, enableCbNs,
        restartQueueNs, ns, userspaceExitNs, mmioDispatchNs, hostSubmitNs, hostCompleteNs, interruptInjectNs,
        syscallNs, dataplaneSubmitNs, dataplaneCompleteNs, eoiMaintenanceNs, registerDispatchNs, mainLoopPassNs,
        mainLoopPollFdsNs);
  }
}

package org.lockvisor.devices.vhostnet;

import static com.google.common.base.Preconditions.checkArgument;
import static org.lockvisor.arch.spi.CostKey.EXIT_IO_KERNEL;
import static org.lockvisor.arch.spi.CostKey.IRQ_ENTRY;
import static org.lockvisor.arch.spi.CostKey.MEMCPY_PER_BYTE;
import static org.lockvisor.arch.spi.CostKey.NIC_RX_PER_FRAME;
import static org.lockvisor.arch.spi.CostKey.VIRTQUEUE_ADD;
import static org.lockvisor.arch.spi.CostKey.VIRTQUEUE_KICK_PREPARE;
import static org.lockvisor.arch.spi.CostKey.VMEXIT_ROUNDTRIP;

import org.lockvisor.arch.spi.ArchCosts;

/**
 * CPU costs of the vhost-net paths, in ns (copies in ps per byte). Defaults are estimates (tag
 * [E], KERNEL-MODEL section 10 style: ranges, not measurements); {@link #from(ArchCosts)} reads
 * the profile-backed ones from the arch profile's {@code CostKey}s.
 * try_to_wake_up, locks, context switches and the hardware exit/entry round trip are priced by the
 * machine and the lock plugins and are not repeated here. None is fitted to a reproduction.
 *
 * @param xmitSkbNs guest {@code start_xmit}: virtio-net header and scatterlist of one packet [E 200-500]
 * @param addNs guest {@code virtqueue_add_buf} of one packet under the TX lock [profile VIRTQUEUE_ADD]
 * @param freeOldXmitNs guest per reclaimed TX buffer in {@code free_old_xmit_skbs} (get_buf, kfree_skb) [E 100-300]
 * @param kickPrepareNs guest {@code virtqueue_kick_prepare} [profile VIRTQUEUE_KICK_PREPARE]
 * @param rxIrqEntryNs guest interrupt entry to the virtqueue callback [profile IRQ_ENTRY]
 * @param rxPerPacketNs guest {@code receive_buf} + {@code netif_receive_skb} + IP to the TCP socket,
 *     per packet, excluding the protocol's own work [E 500-1500]
 * @param refillNs guest {@code try_fill_recv} per posted RX buffer (alloc skb, add_buf) [E 100-400]
 * @param ioeventfdExitNs host: PIO exit handling in KVM up to {@code eventfd_signal}, excluding the
 *     hardware round trip [profile EXIT_IO_KERNEL minus VMEXIT_ROUNDTRIP]
 * @param listAddNs host: {@code list_add_tail} + {@code queue_seq++} in {@code vhost_work_queue} [E 10-40]
 * @param handleNs host: one {@code handle_tx}/{@code handle_rx} invocation's fixed part (vq mutex,
 *     use_mm, notify enable/disable) [E 200-500]
 * @param txPerPacketNs host: {@code vhost_get_vq_desc} + {@code tun_sendmsg} (skb build) + netif_rx_ni
 *     → bridge → NIC driver xmit of one TSO packet, excluding the payload copy [E 2000-4000]
 * @param rxPerPacketNs host: {@code get_rx_bufs} + {@code tun_recvmsg} + {@code vhost_add_used} of one
 *     packet, excluding the copy [E 500-1000]
 * @param copyPsPerByte host and guest bulk copy, ps per byte [profile MEMCPY_PER_BYTE]
 * @param signalNs host: {@code vhost_signal} → {@code eventfd_signal} → irqfd → MSI injection and the
 *     kick of the target vCPU, in all [E 500-2000]
 * @param eventfdSignalNs host: the signaller's part of it, {@code eventfd_signal} up to
 *     {@code irqfd_wakeup} (and {@code schedule_work} in 3.0); the rest ({@code irqfd_inject}:
 *     {@code kvm_set_irq}, APIC delivery, the kick) runs in the kworker or, with direct injection,
 *     in the signaller [E 200-500]
 * @param txSoftirqNs host: the part of {@code txPerPacketNs} that {@code netif_rx_ni} runs as the
 *     receive softirq in the worker's context (bridge, {@code dev_queue_xmit}, NIC driver xmit)
 *     [E 1000-2500]
 * @param nicRxIrqNs host: NIC interrupt entry and NAPI schedule [profile IRQ_ENTRY]
 * @param nicRxPerPacketNs host: NIC RX clean, {@code netif_receive_skb}, bridge forward,
 *     {@code tun_net_xmit} (queue on the tap socket) of one packet, excluding the socket wakeup [E 1000-2500]
 * @param nicRxPerFrameNs host, guest-receive direction (issue 32): per received frame in the NAPI
 *     poll, before the skb goes up: {@code ixgbe_clean_rx_irq}'s descriptor and page handling and
 *     {@code napi_gro_receive} → {@code dev_gro_receive} (the GRO list walk, {@code
 *     skb_gro_receive}'s frag append) [profile NIC_RX_PER_FRAME: estimate 200, 100-400, in every
 *     arch profile with its source]
 */
public record VhostNetCosts(
    long xmitSkbNs,
    long addNs,
    long freeOldXmitNs,
    long kickPrepareNs,
    long rxIrqEntryNs,
    long rxPerPacketNs,
    long refillNs,
    long ioeventfdExitNs,
    long listAddNs,
    long handleNs,
    long txPerPacketNs,
    long rxPerPacketHostNs,
    long copyPsPerByte,
    long signalNs,
    long nicRxIrqNs,
    long nicRxPerPacketNs,
    long eventfdSignalNs,
    long txSoftirqNs,
    long nicRxPerFrameNs) {

  /** The estimates above (profile-backed fields at the x86_64-kvm values). */
  public static final VhostNetCosts ESTIMATES =
      new VhostNetCosts(300, 1000, 150, 100, 500, 1000, 200, 1800, 20, 300, 2500, 700, 100, 1000, 500, 1500, 300,
          1700, 200);

  public VhostNetCosts {
    checkArgument(xmitSkbNs >= 0 && addNs >= 0 && freeOldXmitNs >= 0 && kickPrepareNs >= 0 && rxIrqEntryNs >= 0
        && rxPerPacketNs >= 0 && refillNs >= 0 && ioeventfdExitNs >= 0 && listAddNs >= 0
        && handleNs >= 0 && txPerPacketNs >= 0 && rxPerPacketHostNs >= 0 && copyPsPerByte >= 0 && signalNs >= 0
        && nicRxIrqNs >= 0 && nicRxPerPacketNs >= 0 && eventfdSignalNs >= 0 && txSoftirqNs >= 0
        && nicRxPerFrameNs >= 0,
        "vhost-net costs must not be negative: %s", this);
    checkArgument(eventfdSignalNs <= signalNs, "eventfd-signal-ns %s exceeds signal-ns %s", eventfdSignalNs, signalNs);
    checkArgument(txSoftirqNs <= txPerPacketNs, "tx-softirq-ns %s exceeds tx-per-packet-ns %s", txSoftirqNs,
        txPerPacketNs);
  }

  /**
   * Costs from the arch profile where it prices the step (virtqueue add and kick-prepare, the
   * in-kernel PIO exit minus the hardware round trip the machine adds, interrupt entry, the copy
   * rate, the NIC's receive per frame); the network-stack steps the profiles do not price keep the estimates above. Atomics on
   * shared lines (llist, work flags) are priced by the machine's {@code CacheLines} where the line
   * last was, not here.
   */
  public static VhostNetCosts from(ArchCosts s) {
    VhostNetCosts e = ESTIMATES;
    long ioExit = Math.max(0, s.ns(EXIT_IO_KERNEL) - s.ns(VMEXIT_ROUNDTRIP));
    return new VhostNetCosts(
        e.xmitSkbNs,
        s.ns(VIRTQUEUE_ADD),
        e.freeOldXmitNs,
        s.ns(VIRTQUEUE_KICK_PREPARE),
        s.ns(IRQ_ENTRY),
        e.rxPerPacketNs,
        e.refillNs,
        ioExit,
        e.listAddNs,
        e.handleNs,
        e.txPerPacketNs,
        e.rxPerPacketHostNs,
        Math.round(s.table().value(MEMCPY_PER_BYTE) * 1000),
        e.signalNs,
        s.ns(IRQ_ENTRY),
        e.nicRxPerPacketNs,
        e.eventfdSignalNs,
        e.txSoftirqNs,
        s.ns(NIC_RX_PER_FRAME));
  }

  /** Copy time of {@code bytes}, ns. */
  public long copyNs(long bytes) {
    return bytes * copyPsPerByte / 1000;
  }
}

package org.lockvisor.devices.vhostnet;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * Options of one vhost-net instance (what an experiment chooses; costs come from the arch profile,
 * see {@link VhostNetCosts}).
 *
 * @param workQueue how {@code vhost_work_queue} queues work and wakes the worker
 * @param ringSize descriptors of the TX and of the RX virtqueue (QEMU virtio-net: 256)
 * @param eventIdx VIRTIO_RING_F_EVENT_IDX negotiated
 * @param lineRateMbps line rate of the host NIC's link to the peer, in Mbit/s
 * @param mtu link MTU (IP packet bytes per frame)
 * @param tcpTimestamps the TCP timestamp option (12 bytes of every frame's TCP header)
 * @param txQueueLen the host NIC qdisc limit in packets ({@code txqueuelen}); a full queue drops
 * @param ackDelayNs from the last frame of a packet leaving the host NIC to its ACK reaching the
 *     host NIC (wire, switch, peer's receive path and its ACK), ns
 * @param peerGroSegments frames the peer's GRO merges into one skb, and so covers with one ACK
 *     ({@code MAX_SKB_FRAGS} = 17 with one page fragment per received frame)
 * @param weight bytes one {@code handle_tx}/{@code handle_rx} invocation may move before it
 *     requeues itself ({@code VHOST_NET_WEIGHT})
 * @param rxIrqCpu guest CPU receiving the virtio-net RX interrupt
 * @param nicQueues host NIC receive queues (RSS), each with its interrupt on one host CPU; 0: one per
 *     host CPU
 * @param workerCpu host CPU the vhost worker is pinned to; -1: it floats
 * @param peerQueues the peer NIC's RSS receive queues
 * @param peerIrqIntervalNs the peer NIC's interrupt moderation: least time between two interrupts of
 *     one queue (ixgbe bulk ITR: 8000/s = 125 µs)
 * @param peerNapiBudget frames per NAPI poll of the peer's driver (ixgbe NAPI weight 64)
 * @param tunRead how the host's {@code tun_do_read} treats vhost's non-blocking reads
 * @param irqfdInject how the host's irqfd injects the guest interrupt when vhost signals
 * @param hostAtr the host NIC's Flow Director ATR (issue 32; 3.0.27 drivers/net/ixgbe/ixgbe_main.c):
 *     {@code ixgbe_select_queue} returns {@code smp_processor_id()} when {@code
 *     IXGBE_FLAG_FDIR_HASH_CAPABLE}, so each CPU transmits on its own queue (each with its qdisc of
 *     {@code txqueuelen}) and the NIC serves its non-empty queues in turn, frame by frame;
 *     {@code ixgbe_atr} points a flow's receive filter at the queue of the CPU that transmitted for
 *     it. Off: one transmit queue, RSS on receive (the model before issue 32)
 * @param rxDescriptors descriptors per receive ring of the host NIC ({@code ethtool -G rx}; 3.0.27
 *     drivers/net/ixgbe/ixgbe.h {@code IXGBE_DEFAULT_RXD} 512, {@code IXGBE_MIN_RXD} 64 to {@code
 *     IXGBE_MAX_RXD} 4096, a multiple of {@code IXGBE_REQ_RX_DESCRIPTOR_MULTIPLE} 8, ixgbe_type.h);
 *     the ring holds {@code rxDescriptors - 1} frames ({@code IXGBE_DESC_UNUSED}), a frame finding
 *     none free is dropped (guest-receive)
 */
public record VhostNetConfig(
    WorkQueue workQueue,
    int ringSize,
    boolean eventIdx,
    long lineRateMbps,
    int mtu,
    boolean tcpTimestamps,
    int txQueueLen,
    long ackDelayNs,
    int peerGroSegments,
    long weight,
    int rxIrqCpu,
    int nicQueues,
    int workerCpu,
    int peerQueues,
    long peerIrqIntervalNs,
    int peerNapiBudget,
    TunRead tunRead,
    IrqfdInject irqfdInject,
    boolean hostAtr,
    int rxDescriptors) {

  /** drivers/net/ixgbe/ixgbe.h 3.0.27: {@code #define IXGBE_DEFAULT_RXD 512}. */
  public static final int RX_DESCRIPTORS_DEFAULT = 512;
  /** drivers/net/ixgbe/ixgbe.h 3.0.27: {@code IXGBE_MIN_RXD} 64 (ixgbe_set_ringparam's lower bound). */
  public static final int RX_DESCRIPTORS_MIN = 64;
  /** drivers/net/ixgbe/ixgbe.h 3.0.27: {@code IXGBE_MAX_RXD} 4096 (ixgbe_set_ringparam's upper bound). */
  public static final int RX_DESCRIPTORS_MAX = 4096;
  /** drivers/net/ixgbe/ixgbe_type.h 3.0.27: {@code IXGBE_REQ_RX_DESCRIPTOR_MULTIPLE} 8 (set_ringparam ALIGNs). */
  public static final int RX_DESCRIPTORS_MULTIPLE = 8;

  /** The variants of {@code vhost_work_queue} in drivers/vhost/vhost.c. */
  public enum WorkQueue {
    /** Linux 3.0–3.10: {@code wake_up_process(worker)} while holding {@code work_lock}. */
    WAKE_INSIDE_LOCK("wake-inside-lock"),
    /** ac9fde2474d0 (3.11): unlock, then {@code wake_up_process(worker)}. */
    WAKE_OUTSIDE_LOCK("wake-outside-lock"),
    /** 04b96e5528ca (4.6): lockless list, {@code test_and_set_bit} + {@code llist_add}. */
    LLIST("llist");

    private final String option;

    WorkQueue(String option) {
      this.option = option;
    }

    public String option() {
      return option;
    }

    public static WorkQueue of(String option) {
      for (WorkQueue w : values()) {
        if (w.option.equals(option)) {
          return w;
        }
      }
      throw new IllegalArgumentException(
          "unknown work-queue [" + option + "]; known: [wake-inside-lock, wake-outside-lock, llist]");
    }
  }

  /** {@code tun_do_read} in drivers/net/tun.c, by era. */
  public enum TunRead {
    /**
     * 3.0–3.2: every read, blocking or not, does {@code add_wait_queue(&tun->wq.wait)}, sets
     * TASK_INTERRUPTIBLE around {@code skb_dequeue} and {@code tun_put_user}, then
     * {@code remove_wait_queue}.
     */
    V3_0("3.0", true, true),
    /** 3.3–4.7: {@code if (unlikely(!noblock)) add_wait_queue(...)}; the state is still set INTERRUPTIBLE. */
    NOBLOCK_GUARD("noblock-guard", false, true),
    /** 4.8+ ({@code tun_ring_recv}): a non-blocking read returns before any wait queue or state change. */
    RING("ring", false, false);

    private final String option;
    private final boolean waitQueue;
    private final boolean interruptible;

    TunRead(String option, boolean waitQueue, boolean interruptible) {
      this.option = option;
      this.waitQueue = waitQueue;
      this.interruptible = interruptible;
    }

    public String option() {
      return option;
    }

    /** Whether a non-blocking read adds and removes the reader on {@code tun->wq.wait}. */
    public boolean waitQueue() {
      return waitQueue;
    }

    /** Whether a non-blocking read sets the reader TASK_INTERRUPTIBLE around the dequeue and copy. */
    public boolean interruptible() {
      return interruptible;
    }

    public static TunRead of(String option) {
      for (TunRead r : values()) {
        if (r.option.equals(option)) {
          return r;
        }
      }
      throw new IllegalArgumentException("unknown tun-read [" + option + "]; known: [3.0, noblock-guard, ring]");
    }
  }

  /** How {@code irqfd_wakeup} (virt/kvm/eventfd.c) injects the guest interrupt. */
  public enum IrqfdInject {
    /** 3.0: {@code schedule_work(&irqfd->inject)}; the kworker of the signalling CPU injects. */
    KWORKER("kworker"),
    /** Later kernels: MSI injected directly from {@code irqfd_wakeup} in the signaller's context. */
    DIRECT("direct");

    private final String option;

    IrqfdInject(String option) {
      this.option = option;
    }

    public String option() {
      return option;
    }

    public static IrqfdInject of(String option) {
      for (IrqfdInject i : values()) {
        if (i.option.equals(option)) {
          return i;
        }
      }
      throw new IllegalArgumentException("unknown irqfd-inject [" + option + "]; known: [kworker, direct]");
    }
  }

  public VhostNetConfig {
    checkArgument(workQueue != null, "workQueue must be set");
    checkArgument(ringSize >= 2 && ringSize <= 32768 && Integer.bitCount(ringSize) == 1,
        "ring-size must be a power of two in [2, 32768]: %s", ringSize);
    checkArgument(lineRateMbps > 0, "line-rate-mbps must be positive: %s", lineRateMbps);
    checkArgument(mtu >= 576 && mtu <= 65535, "mtu must be in [576, 65535]: %s", mtu);
    checkArgument(txQueueLen > 0, "txqueuelen must be positive: %s", txQueueLen);
    checkArgument(ackDelayNs >= 0, "ack-delay-ns must not be negative: %s", ackDelayNs);
    checkArgument(peerGroSegments > 0, "peer-gro-segments must be positive: %s", peerGroSegments);
    checkArgument(weight > 0, "weight must be positive: %s", weight);
    checkArgument(rxIrqCpu >= 0, "rx-irq-cpu must be a cpu index: %s", rxIrqCpu);
    checkArgument(nicQueues >= 0, "nic-queues must not be negative: %s", nicQueues);
    checkArgument(workerCpu >= -1, "worker-cpu must be a cpu index or -1: %s", workerCpu);
    checkArgument(peerQueues > 0, "peer-queues must be positive: %s", peerQueues);
    checkArgument(peerIrqIntervalNs >= 0, "peer-irq-interval-ns must not be negative: %s", peerIrqIntervalNs);
    checkArgument(peerNapiBudget > 0, "peer-napi-budget must be positive: %s", peerNapiBudget);
    checkArgument(tunRead != null, "tunRead must be set");
    checkArgument(irqfdInject != null, "irqfdInject must be set");
    // ixgbe_set_ringparam would clamp and round such a count: a setting that cannot take effect is refused
    checkArgument(rxDescriptors >= RX_DESCRIPTORS_MIN && rxDescriptors <= RX_DESCRIPTORS_MAX
            && rxDescriptors % RX_DESCRIPTORS_MULTIPLE == 0,
        "rx-descriptors must be a multiple of %s in [%s, %s] (ixgbe IXGBE_MIN_RXD..IXGBE_MAX_RXD): %s",
        RX_DESCRIPTORS_MULTIPLE, RX_DESCRIPTORS_MIN, RX_DESCRIPTORS_MAX, rxDescriptors);
  }

  /** Defaults: the patched work queue, 256-entry rings, EVENT_IDX, 10 GbE, MTU 1500 with timestamps. */
  public static VhostNetConfig defaults() {
    return new VhostNetConfig(WorkQueue.WAKE_OUTSIDE_LOCK, 256, true, 10_000, 1500, true, 1000, ACK_DELAY_NS, 17,
        0x80000, 0, 0, -1, 16, 125_000, 64, TunRead.V3_0, IrqfdInject.KWORKER, true, RX_DESCRIPTORS_DEFAULT);
  }

  public VhostNetConfig withWorkQueue(WorkQueue w) {
    return new VhostNetConfig(w, ringSize, eventIdx, lineRateMbps, mtu, tcpTimestamps, txQueueLen, ackDelayNs,
        peerGroSegments, weight,
        rxIrqCpu, nicQueues, workerCpu, peerQueues, peerIrqIntervalNs, peerNapiBudget, tunRead, irqfdInject, hostAtr,
        rxDescriptors);
  }

  public VhostNetConfig withLineRateMbps(long mbps) {
    return new VhostNetConfig(workQueue, ringSize, eventIdx, mbps, mtu, tcpTimestamps, txQueueLen, ackDelayNs,
        peerGroSegments, weight,
        rxIrqCpu, nicQueues, workerCpu, peerQueues, peerIrqIntervalNs, peerNapiBudget, tunRead, irqfdInject, hostAtr,
        rxDescriptors);
  }

  public VhostNetConfig withTxQueueLen(int n) {
    return new VhostNetConfig(workQueue, ringSize, eventIdx, lineRateMbps, mtu, tcpTimestamps, n, ackDelayNs,
        peerGroSegments, weight,
        rxIrqCpu, nicQueues, workerCpu, peerQueues, peerIrqIntervalNs, peerNapiBudget, tunRead, irqfdInject, hostAtr,
        rxDescriptors);
  }

  /**
   * Default {@code ack-delay-ns}: the peer's stack from its NAPI poll to the ACK on its wire, the
   * switch both ways and the wire [E 5–30 µs]; the peer's interrupt moderation, NAPI and GRO are
   * modelled ({@link PeerReceiver}), not in this figure.
   */
  public static final long ACK_DELAY_NS = 10_000;

  public VhostNetConfig withMtu(int m) {
    return new VhostNetConfig(workQueue, ringSize, eventIdx, lineRateMbps, m, tcpTimestamps, txQueueLen, ackDelayNs,
        peerGroSegments, weight,
        rxIrqCpu, nicQueues, workerCpu, peerQueues, peerIrqIntervalNs, peerNapiBudget, tunRead, irqfdInject, hostAtr,
        rxDescriptors);
  }

  public VhostNetConfig withPeer(int queues, long irqIntervalNs) {
    return new VhostNetConfig(workQueue, ringSize, eventIdx, lineRateMbps, mtu, tcpTimestamps, txQueueLen, ackDelayNs,
        peerGroSegments, weight,
        rxIrqCpu, nicQueues, workerCpu, queues, irqIntervalNs, peerNapiBudget, tunRead, irqfdInject, hostAtr,
        rxDescriptors);
  }

  public VhostNetConfig withTunRead(TunRead r) {
    return new VhostNetConfig(workQueue, ringSize, eventIdx, lineRateMbps, mtu, tcpTimestamps, txQueueLen, ackDelayNs,
        peerGroSegments, weight,
        rxIrqCpu, nicQueues, workerCpu, peerQueues, peerIrqIntervalNs, peerNapiBudget, r, irqfdInject, hostAtr,
        rxDescriptors);
  }

  public VhostNetConfig withIrqfdInject(IrqfdInject i) {
    return new VhostNetConfig(workQueue, ringSize, eventIdx, lineRateMbps, mtu, tcpTimestamps, txQueueLen, ackDelayNs,
        peerGroSegments, weight,
        rxIrqCpu, nicQueues, workerCpu, peerQueues, peerIrqIntervalNs, peerNapiBudget, tunRead, i, hostAtr,
        rxDescriptors);
  }

  public VhostNetConfig withHostAtr(boolean atr) {
    return new VhostNetConfig(workQueue, ringSize, eventIdx, lineRateMbps, mtu, tcpTimestamps, txQueueLen, ackDelayNs,
        peerGroSegments, weight,
        rxIrqCpu, nicQueues, workerCpu, peerQueues, peerIrqIntervalNs, peerNapiBudget, tunRead, irqfdInject, atr,
        rxDescriptors);
  }

  public VhostNetConfig withRxDescriptors(int n) {
    return new VhostNetConfig(workQueue, ringSize, eventIdx, lineRateMbps, mtu, tcpTimestamps, txQueueLen, ackDelayNs,
        peerGroSegments, weight,
        rxIrqCpu, nicQueues, workerCpu, peerQueues, peerIrqIntervalNs, peerNapiBudget, tunRead, irqfdInject, hostAtr,
        n);
  }

  /** TCP payload bytes per frame: MTU minus IPv4 (20) and TCP (20, +12 with timestamps) headers. */
  public int mss() {
    return mtu - 40 - (tcpTimestamps ? 12 : 0);
  }

  /** Wire bytes per frame beyond the TCP payload: headers, Ethernet header+FCS (18), preamble+IFG (20). */
  public int frameOverhead() {
    return mtu - mss() + 18 + 20;
  }
}

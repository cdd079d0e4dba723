package org.lockvisor.devices.vhostnet;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.ArrayDeque;
import java.util.Arrays;
import org.lockvisor.core.sim.EventHandler;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Ops;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Task;

/**
 * The guest-receive direction's world outside the guest (issue 32): an external iperf 2 client
 * whose streams send to the guest, the wire, and the host NIC's receive queues with NAPI and GRO.
 *
 * <p><b>The sender.</b> {@code streams} TCP streams (iperf 2 {@code -P}: one thread per stream,
 * lynxis/iperf2 src/Client.cpp), each window-limited to {@code windowBytes} (the guest's receive
 * window, 3.0 net/ipv4/tcp.c {@code tcp_init}: {@code tcp_rmem[2] = max(87380, min(4 MB, ...))})
 * and sending TSO packets of up to {@code gso_max_size} in MSS frames. Stream {@code i} leaves
 * through the sender NIC's transmit queue {@code i mod queues} (ixgbe {@code ixgbe_select_queue}
 * with Flow Director: the queue of the CPU the stream's thread runs on, threads spread over
 * CPUs); the NIC serves its non-empty transmit queues in turn, one frame each, so the frames of
 * the queues' current packets interleave on the wire [issue 32's premise; the 82599's transmit
 * arbitration granularity is not verified here]. A frame tap-dropped on the host is a hole the
 * sender learns of only from the guest: the guest's ACKs of that flow SACK the segments above it
 * (3.0.27 net/ipv4/tcp_input.c {@code tcp_sacktag_write_queue}) and the sender retransmits once
 * more than {@code tp->reordering} = 3 segments from the hole on are SACKed ({@code
 * tcp_time_to_recover}, FACK), or, when too few follow, its retransmission timer fires ({@code
 * TCP_RTO_MIN} 200 ms, doubled per consecutive timeout up to {@code TCP_RTO_MAX}): {@link
 * ExternalSender}. The host's drop itself tells the sender nothing.
 *
 * <p><b>The host NIC</b> (drivers/net/ixgbe/ixgbe_main.c, 3.0.27): a frame reaches the receive
 * queue its flow's Flow Director filter names, and takes one of the queue's {@code rx-descriptors}
 * receive descriptors ({@link #arrive}); a frame finding none is dropped. ATR ({@code ixgbe_atr}) programs that filter from
 * the host's own transmits: the queue a transmit uses is {@code smp_processor_id()} folded into
 * the queue count ({@code ixgbe_select_queue} when {@code IXGBE_FLAG_FDIR_HASH_CAPABLE}), the
 * first packet of a flow (its SYN) is always sampled and then every {@code atr_sample_rate} = 20th
 * packet on that ring ({@code ixgbe_sw_init}; {@link FlowDirector}, shared with guest-send); so a flow's data follows the CPU that sent its
 * ACKs — here the vhost worker's CPU, where {@code handle_tx}'s {@code netif_rx_ni} runs the
 * bridge and {@code dev_queue_xmit}. Before a flow has a filter, RSS hashes it. Queue {@code q}'s
 * interrupt runs on CPU {@code q} (the driver's affinity hint, {@code ixgbe_alloc_q_vectors}
 * {@code cpumask_set_cpu(v_idx, ...)}), no sooner than the moderation interval after its previous
 * one (ixgbe dynamic ITR, {@code ixgbe_update_itr}); NAPI polls up to the budget (weight 64) of
 * frames again and again while a poll fills its budget, within 3.0's softirq bounds ({@code
 * netdev_budget} 300 and 2 jiffies per {@code net_rx_action}, 10 restarts, then {@code
 * ksoftirqd}: {@link NetRxSoftirq}). A queue left to {@code ksoftirqd} stays pending on its CPU,
 * and the next hard interrupt there — the timer tick, a reschedule IPI — runs it at its {@code
 * irq_exit}.
 *
 * <p><b>GRO</b> (net/core/dev.c 3.0.27 {@code dev_gro_receive}): a frame merges into the held skb
 * of its flow (at most {@code MAX_SKB_FRAGS} frames and 64 KiB, {@code skb_gro_receive}); a frame
 * of a new flow is held if fewer than {@code MAX_GRO_SKBS} = 8 flows are held, else it goes up
 * the stack unmerged ({@code napi->gro_count >= MAX_GRO_SKBS} → {@code goto normal}); {@code
 * napi_complete} flushes the held skbs. Each skb then takes the host path the vhost side builds
 * ({@code netif_receive_skb} → bridge → {@code tun_net_xmit}: a full tap queue, {@code
 * TUN_READQ_SIZE} = 500 skbs plus the tap qdisc's 500, drops).
 *
 * <p>Allocation-free after warm-up: rings of primitive arrays grow to their peak and stay.
 */
final class GuestReceive implements EventHandler {
  /** drivers/net/tun.c 3.0.27: {@code dev->tx_queue_len = TUN_READQ_SIZE} (500), then the tap qdisc's 500. */
  static final int TAP_LIMIT = 500 + 500;
  /** 3.0 virtio_net {@code add_recvbuf_mergeable}: one page per posted buffer. */
  static final int MERGEABLE_BUFFER_BYTES = 4096;
  /** virtio_net_hdr_mrg_rxbuf: 12 bytes in front of every received packet. */
  static final int VNET_HDR_BYTES = 12;

  private static final int EV_FRAME = 1;
  private static final int EV_IRQ = 2;
  static final int EV_ACK = 3;
  static final int EV_RTO = 4;
  /** An ACK in the back channel that only SACKs (a hole of its flow is open): it does not advance {@code snd_una}. */
  static final long SACK_ONLY = 1L << 62;

  private final Simulation sim;
  private final Kernel host;
  private final VhostNetConfig config;
  private final VhostNetCounters stats;
  private final Packet.Pool pool;
  final int streams;
  private final int mss;
  private final int sizeGoal;
  private final long frameNs;
  // sender
  final ExternalSender sender;
  /** Bytes of a flow dropped on the host, not yet known to the sender (too few segments SACKed above). */
  final long[] unreported;
  /** Bytes of a flow the guest received (and SACKs) above its open hole. */
  private final long[] sackedAbove;
  private final boolean[] rtoArmed;
  private final int outQueues;
  private final int[] cursor;
  private final int[] curFlow;
  private final int[] curFrames;
  private final int[] curTaken;
  private final int[] curLastBytes;
  private int rr;
  private boolean wireBusy;
  private int wireFlow;
  private int wireBytes;
  // ACKs and losses on their way to the sender (constant delay: FIFO)
  final LongRing backFlow = new LongRing();
  private final LongRing backBytes = new LongRing();
  private final LongRing backAt = new LongRing();
  // host NIC
  private final int hostQueues;
  private final FlowDirector fdir;
  private final LongRing[] ring;
  private final boolean[] irqScheduled;
  private final boolean[] inNapi;
  private final long[] lastIrq;
  private final Program[] irq;
  final ArrayDeque<Packet>[] ready;
  /** {@code ethtool -G rx}: descriptors per receive ring; frames a poll took, not yet refilled. */
  private final int rxDescriptors;
  private final int[] unrefilled;
  // GRO list per queue (a poll of one queue at a time per queue), and where its skbs go up
  private final GroTable[] gro;
  /** NET_RX softirq bounds, ksoftirqd and irq_exit (kernel/softirq.c 3.0.27), built with the first queue. */
  NetRxSoftirq softirqs;
  private final GroTable.Sink[] up;
  private final boolean[] complete;

  // statistics
  long frames;
  long skbs;
  long unmergedFrames;
  long tapDrops;
  /** Frames that found their receive ring full (the NIC's {@code rx_missed_errors}). */
  long rxMissed;
  long skbBytes;
  long irqs;
  /** Queue interrupts raised on the CPU the vhost worker last ran on / while it ran there. */
  long irqsOnWorkerCpu;
  long irqsHittingWorker;
  /** The vhost worker (where the NIC interrupts land relative to it: statistics only). */
  Task worker;

  @SuppressWarnings("unchecked")
  GuestReceive(Simulation sim, Kernel host, VhostNetConfig config, VhostNetCounters stats, Packet.Pool pool,
      int streams, long windowBytes, int hostQueues, FlowDirector fdir) {
    checkArgument(streams > 0, "streams must be positive: %s", streams);
    checkArgument(windowBytes >= config.mss(), "receive window %s below one MSS", windowBytes);
    this.sim = sim;
    this.host = host;
    this.config = config;
    this.stats = stats;
    this.pool = pool;
    this.streams = streams;
    this.mss = config.mss();
    this.sizeGoal = Math.max(mss, (65536 - 1 - 40 - 14) / mss * mss);
    this.frameNs = Math.max(1, (long) (mss + config.frameOverhead()) * 8000 / config.lineRateMbps());
    this.sender = new ExternalSender(streams, windowBytes, mss);
    this.unreported = new long[streams];
    this.sackedAbove = new long[streams];
    this.rtoArmed = new boolean[streams];
    this.outQueues = Math.min(config.peerQueues(), streams);
    this.cursor = new int[outQueues];
    this.curFlow = new int[outQueues];
    Arrays.fill(curFlow, -1);
    this.curFrames = new int[outQueues];
    this.curTaken = new int[outQueues];
    this.curLastBytes = new int[outQueues];
    this.hostQueues = hostQueues;
    this.fdir = fdir;
    this.ring = new LongRing[hostQueues];
    this.ready = new ArrayDeque[hostQueues];
    for (int q = 0; q < hostQueues; q++) {
      ring[q] = new LongRing();
      ready[q] = new ArrayDeque<>(64);
    }
    this.rxDescriptors = config.rxDescriptors();
    this.unrefilled = new int[hostQueues];
    this.irqScheduled = new boolean[hostQueues];
    this.inNapi = new boolean[hostQueues];
    this.lastIrq = new long[hostQueues];
    Arrays.fill(lastIrq, Long.MIN_VALUE / 4);
    this.irq = new Program[hostQueues];
    this.gro = new GroTable[hostQueues];
    this.up = new GroTable.Sink[hostQueues];
    for (int q = 0; q < hostQueues; q++) {
      int queue = q;
      gro[q] = new GroTable(config.peerGroSegments());
      up[q] = (flow, frames, bytes) -> up(queue, flow, bytes);
    }
    this.complete = new boolean[hostQueues];
  }

  /**
   * Builds queue {@code q}'s interrupt handler and its softirq: the handler schedules NAPI and
   * leaves through {@code irq_exit} → {@code __do_softirq}, whose {@code net_rx_action} polls the
   * queue (a budget of frames each, GRO in between) and sends the skbs a poll completes up the
   * host stack through {@code deliverOne}, which takes the next skb from {@code ready[q]}. The
   * softirq's bounds ({@code netdev_budget}, 2 jiffies, {@code MAX_SOFTIRQ_RESTART}, then {@code
   * ksoftirqd} or the next {@code irq_exit} on the CPU) are {@link NetRxSoftirq}'s.
   */
  void buildQueue(int q, VhostNetCosts costs, Program deliverOne) {
    if (softirqs == null) {
      softirqs = new NetRxSoftirq(sim, host, hostQueues);
    }
    NetRxSoftirq sq = softirqs;
    int budget = config.peerNapiBudget();
    Program poll = Program.named("ixgbe_poll")
        .op(Ops.work(t -> {
          int n = poll(q, budget);
          sq.used(q, n); // net_rx_action: budget -= work
          return (long) n * costs.nicRxPerFrameNs();
        }, "ixgbe_clean_rx_irq"))
        // ixgbe_clean_rx_irq 3.0.27 ends with ixgbe_alloc_rx_buffers(rx_ring, IXGBE_DESC_UNUSED):
        // the descriptors it cleaned are the hardware's again (its refills every
        // IXGBE_RX_BUFFER_WRITE = 16 frames inside the loop are taken at the poll's end here)
        .run(t -> unrefilled[q] = 0)
        .build();
    Program netRxAction = Program.named("net_rx_action")
        .run(t -> sq.begin(q))
        .op(Ops.loopCall(t -> {
          if (!ready[q].isEmpty()) {
            return deliverOne;
          }
          if (complete[q]) {
            napiComplete(q);
            return null;
          }
          return sq.squeezed(q) ? null : poll; // softnet_break re-raises NET_RX_SOFTIRQ
        }))
        .build();
    Program doSoftirq = sq.install(q, netRxAction);
    irq[q] = Program.interruptHandler(NicLink.IRQ_SYMBOL)
        .work(costs.nicRxIrqNs(), "handle_irq_event")
        .run(t -> {
          inNapi[q] = true;
          complete[q] = false;
        })
        .call(doSoftirq) // irq_exit -> invoke_softirq
        .build();
  }

  /** Starts the streams: every sender queue takes its first packet, the wire starts. */
  void start() {
    kickWire();
  }

  // -------------------------------------------------------------------------------------------
  // Sender and wire.

  private boolean startPacket(int sq) {
    int n = (streams - sq + outQueues - 1) / outQueues; // flows sq, sq + Q, ...
    for (int k = 0; k < n; k++) {
      int idx = (cursor[sq] + k) % n;
      int f = sq + idx * outQueues;
      long bytes;
      long avail = sender.avail(f); // tcp_write_xmit: cwnd and rwnd
      if (avail < mss) {
        continue;
      }
      long[] resend = sender.resend;
      if (resend[f] > 0) {
        bytes = Math.min(Math.min(resend[f], sizeGoal), Math.max(avail / mss * mss, mss));
        resend[f] -= bytes;
      } else {
        bytes = Math.min(avail / mss * mss, sizeGoal);
      }
      sender.send(f, bytes, sim.now());
      cursor[sq] = (idx + 1) % n;
      curFlow[sq] = f;
      curFrames[sq] = (int) ((bytes + mss - 1) / mss);
      curLastBytes[sq] = (int) (bytes - (long) (curFrames[sq] - 1) * mss);
      curTaken[sq] = 0;
      return true;
    }
    return false;
  }

  private void kickWire() {
    if (wireBusy) {
      return;
    }
    for (int k = 0; k < outQueues; k++) {
      int sq = (rr + k) % outQueues;
      if (curFlow[sq] < 0 && !startPacket(sq)) {
        continue;
      }
      rr = (sq + 1) % outQueues;
      wireFlow = curFlow[sq];
      wireBytes = ++curTaken[sq] == curFrames[sq] ? curLastBytes[sq] : mss;
      if (curTaken[sq] == curFrames[sq]) {
        curFlow[sq] = -1;
      }
      wireBusy = true;
      sim.schedule(frameNs, this, EV_FRAME, 0);
      return;
    }
  }

  /** An ACK (or a loss) for {@code flow} leaves the host: it reaches the sender after the ACK delay. */
  private void toSender(int flow, long bytes) {
    boolean wasEmpty = backFlow.isEmpty();
    backFlow.add(flow);
    backBytes.add(bytes);
    backAt.add(sim.now() + config.ackDelayNs());
    if (wasEmpty) {
      sim.scheduleAt(sim.now() + config.ackDelayNs(), this, EV_ACK, 0);
    }
  }

  /**
   * The guest's ACK of {@code acked} bytes of {@code flow} leaves the host NIC from {@code cpu}:
   * {@code ixgbe_select_queue} picks that CPU's queue, {@code ixgbe_atr} samples it (a flow's first
   * packet always, then every 20th on the ring) and points the flow's receive filter at it.
   */
  void ackFromGuest(int flow, long acked, int cpu) {
    fdir.transmit(flow, cpu);
    boolean hole = unreported[flow] > 0;
    if (hole) { // a duplicate ACK: its SACK blocks cover what arrived above the hole
      sackedAbove[flow] += acked;
      if (ExternalSender.timeToRecover(unreported[flow], sackedAbove[flow], mss)) {
        toSender(flow, -unreported[flow]); // the sender's tcp_time_to_recover: fast retransmit
        unreported[flow] = 0;
        sackedAbove[flow] = 0;
      }
    }
    toSender(flow, hole ? acked | SACK_ONLY : acked);
  }

  /**
   * tun_net_xmit found the tap full: the skb is dropped. The sender learns of it only from later
   * guest ACKs of the flow ({@link #ackFromGuest}) or from its retransmission timer.
   */
  void tapDrop(Packet p) {
    tapDrops++;
    lost(p.flow, p.bytes);
    pool.release(p);
  }

  /** {@code bytes} of {@code f} never reach the guest: a hole the sender learns of by SACK or by its timer. */
  private void lost(int f, long bytes) {
    unreported[f] += bytes;
    armRto(f);
  }

  /** The retransmission timer of {@code f}, lazily: one event, moved on when ACKs restarted the timer. */
  private void armRto(int f) {
    if (!rtoArmed[f]) {
      rtoArmed[f] = true;
      sim.scheduleAt(Math.max(sim.now(), sender.rtoAt[f]), this, EV_RTO, f);
    }
  }

  @Override
  public void onEvent(int kind, long arg) {
    switch (kind) {
      case EV_FRAME -> {
        wireBusy = false;
        arrive(wireFlow, wireBytes);
        kickWire();
      }
      case EV_IRQ -> {
        int q = (int) arg;
        irqScheduled[q] = false;
        lastIrq[q] = sim.now();
        int cpu = q % host.cpuCount();
        irqs++;
        if (worker != null && worker.cpu() != null && worker.cpu().index() == cpu) {
          irqsOnWorkerCpu++;
          if (worker.onCpu()) {
            irqsHittingWorker++;
          }
        }
        host.cpu(cpu).raiseInterrupt(irq[q]);
      }
      case EV_ACK -> {
        int f = (int) backFlow.poll();
        long b = backBytes.poll();
        backAt.poll();
        if (b >= 0) {
          sender.ack(f, b & ~SACK_ONLY, (b & SACK_ONLY) == 0, sim.now());
        } else {
          sender.fastRetransmit(f, -b); // a loss: out of flight, to be resent first
        }
        if (!backAt.isEmpty()) {
          sim.scheduleAt(Math.max(sim.now(), backAt.peek()), this, EV_ACK, 0);
        }
        kickWire();
      }
      case EV_RTO -> { // tcp_retransmit_timer at the sender: too few SACKs reported the hole
        int f = (int) arg;
        rtoArmed[f] = false;
        if (unreported[f] > 0) {
          if (sim.now() < sender.rtoAt[f]) {
            armRto(f); // ACKs advancing snd_una restarted the timer since it was armed
          } else {
            sender.timeout(f, unreported[f], sim.now());
            unreported[f] = 0;
            sackedAbove[f] = 0;
            kickWire();
          }
        }
      }
      default -> throw new IllegalStateException("unknown guest-receive event " + kind);
    }
  }

  // -------------------------------------------------------------------------------------------
  // Host NIC receive, NAPI, GRO.

  /** The frame's receive queue: its Flow Director filter, RSS before ATR has sampled the flow. */
  int queueOf(int flow) {
    return fdir.receiveQueue(flow);
  }

  /** A frame in queue {@code q}'s ring without its interrupt (tests drive {@link #poll} themselves). */
  void frameForTest(int q, int flow, int bytes) {
    ring[q].add(((long) flow << 32) | bytes);
  }

  /**
   * A frame of {@code flow} reaches the host NIC. The 82599 DMAs it into the next free receive
   * descriptor of its queue; the driver posts {@code IXGBE_DESC_UNUSED} = count - 1 of a ring's
   * descriptors (3.0.27 ixgbe.h; {@code ixgbe_configure_rx_ring} → {@code ixgbe_alloc_rx_buffers}),
   * and a descriptor is the hardware's again only when a poll has cleaned and refilled it. A frame
   * finding the ring full is dropped and counted ({@code rx_missed_errors}, {@code
   * ixgbe_update_stats}: the MPC registers). [The 82599's on-chip packet buffer, which with
   * {@code SRRCTL.DROP_EN} clear — {@code ixgbe_configure_srrctl} sets it only with VFs — holds
   * frames for a full ring until it fills itself, is not modelled: the drop happens at the ring.]
   */
  void arrive(int flow, int bytes) {
    int q = queueOf(flow);
    if (ring[q].size() + unrefilled[q] >= rxDescriptors - 1) {
      rxMissed++;
      lost(flow, bytes);
      return;
    }
    ring[q].add(((long) flow << 32) | bytes);
    if (!inNapi[q]) {
      armIrq(q);
    }
  }

  private void armIrq(int q) {
    if (irqScheduled[q]) {
      return;
    }
    irqScheduled[q] = true;
    sim.scheduleAt(Math.max(sim.now(), lastIrq[q] + config.peerIrqIntervalNs()), this, EV_IRQ, q);
  }

  private void napiComplete(int q) {
    inNapi[q] = false;
    if (!ring[q].isEmpty()) {
      armIrq(q);
    }
  }

  /**
   * One NAPI poll of queue {@code q}: up to {@code budget} frames through GRO; the skbs it
   * completes go to {@code ready[q]}. A poll that does not fill its budget completes NAPI and
   * flushes the held skbs. Returns the frames taken.
   */
  int poll(int q, int budget) {
    LongRing r = ring[q];
    int n = 0;
    while (n < budget && !r.isEmpty()) {
      long v = r.poll();
      if (!gro[q].receive((int) (v >>> 32), (int) v, up[q])) {
        unmergedFrames++;
      }
      n++;
    }
    unrefilled[q] += n;
    frames += n;
    if (n < budget) {
      gro[q].flush(up[q]);
      complete[q] = true;
    }
    return n;
  }

  private void up(int q, int flow, int bytes) {
    skbs++;
    skbBytes += bytes;
    Packet p = pool.allocAck(flow, bytes);
    ready[q].add(p);
  }

  void resetStats() {
    frames = skbs = unmergedFrames = tapDrops = skbBytes = irqs = irqsOnWorkerCpu = irqsHittingWorker = 0;
    rxMissed = sender.fastRetransmits = sender.timeouts = 0;
    fdir.samples = 0;
    if (softirqs != null) {
      softirqs.resetStats();
    }
  }
}

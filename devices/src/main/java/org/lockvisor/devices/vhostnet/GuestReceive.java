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
import org.lockvisor.machine.TaskState;

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
 * sender learns of only from the guest: the guest's next ACK of that flow carries it (SACK /
 * duplicate ACKs, 3.0.27 net/ipv4/tcp_input.c {@code tcp_sacktag_write_queue}), or, when no ACK
 * of the flow comes, the retransmission timer after {@code TCP_RTO_MIN} (include/net/tcp.h
 * 3.0.27: {@code HZ/5}, 200 ms); lost bytes are then resent first (no congestion control: the
 * sender's window is fixed; a simplification). The host's drop itself tells the sender nothing.
 *
 * <p><b>The host NIC</b> (drivers/net/ixgbe/ixgbe_main.c, 3.0.27): a frame reaches the receive
 * queue its flow's Flow Director filter names. ATR ({@code ixgbe_atr}) programs that filter from
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
 * ksoftirqd}: {@link #buildQueue}).
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
  /** include/net/tcp.h 3.0.27: {@code #define TCP_INIT_CWND 10} segments. */
  static final int INIT_CWND_SEGMENTS = 10;
  /** net/ipv4/tcp_cubic.c 3.0.27: {@code static int beta __read_mostly = 717;} (/1024), the decrease. */
  static final int CUBIC_BETA = 717;
  /** include/net/tcp.h 3.0.27: {@code #define TCP_RTO_MIN ((unsigned)(HZ/5))}, 200 ms. */
  static final long RTO_MIN_NS = 200_000_000L;

  private final Simulation sim;
  private final Kernel host;
  private final VhostNetConfig config;
  private final VhostNetCounters stats;
  private final Packet.Pool pool;
  final int streams;
  private final long window;
  private final int mss;
  private final int sizeGoal;
  private final long frameNs;
  // sender
  final long[] inflight;
  final long[] resend;
  /** Bytes of a flow dropped on the host, not yet known to the sender (no guest ACK since). */
  final long[] unreported;
  private final boolean[] rtoArmed;
  /** Congestion window and threshold; bytes sent, bytes resolved (ACKed or reported lost), recovery point. */
  final long[] cwnd;
  private final long[] ssthresh;
  private final long[] sent;
  private final long[] resolved;
  private final long[] recover;
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
  // GRO list per queue (a poll of one queue at a time per queue), and where its skbs go up
  private final GroTable[] gro;
  // softirq bounds and ksoftirqd (kernel/softirq.c, net/core/dev.c 3.0.27)
  /** net/core/dev.c 3.0.27: {@code int netdev_budget __read_mostly = 300}. */
  static final int NETDEV_BUDGET = 300;
  /** kernel/softirq.c 3.0.27: {@code #define MAX_SOFTIRQ_RESTART 10}. */
  static final int MAX_SOFTIRQ_RESTART = 10;
  private final Program[] softirq;
  private final Program[] softirqThenResched;
  private final int[] rxBudget;
  private final long[] rxStart;
  private final int[] restartsLeft;
  private final boolean[] softirqPending;
  /** Queues whose NAPI a CPU's ksoftirqd owns (still scheduled, interrupt masked). */
  private final boolean[] deferred;
  private Task[] ksoftirqd;
  private Program[] wakeKsoftirqd;
  private final GroTable.Sink[] up;
  private final boolean[] complete;

  // statistics
  long frames;
  long skbs;
  long unmergedFrames;
  long tapDrops;
  long skbBytes;
  long irqs;
  /** net_rx_action runs cut short by the budget or the time limit ({@code sd->time_squeeze}). */
  long timeSqueezes;
  long ksoftirqdWakes;
  long ksoftirqdRuns;
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
    this.window = windowBytes;
    this.mss = config.mss();
    this.sizeGoal = Math.max(mss, (65536 - 1 - 40 - 14) / mss * mss);
    this.frameNs = Math.max(1, (long) (mss + config.frameOverhead()) * 8000 / config.lineRateMbps());
    this.inflight = new long[streams];
    this.resend = new long[streams];
    this.unreported = new long[streams];
    this.rtoArmed = new boolean[streams];
    this.cwnd = new long[streams];
    Arrays.fill(cwnd, Math.min(windowBytes, (long) INIT_CWND_SEGMENTS * config.mss()));
    this.ssthresh = new long[streams];
    Arrays.fill(ssthresh, Long.MAX_VALUE);
    this.sent = new long[streams];
    this.resolved = new long[streams];
    this.recover = new long[streams];
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
    this.softirq = new Program[hostQueues];
    this.softirqThenResched = new Program[hostQueues];
    this.rxBudget = new int[hostQueues];
    this.rxStart = new long[hostQueues];
    this.restartsLeft = new int[hostQueues];
    this.softirqPending = new boolean[hostQueues];
    this.deferred = new boolean[hostQueues];
  }

  /**
   * Builds queue {@code q}'s interrupt handler and its softirq: the handler schedules NAPI and
   * leaves through {@code irq_exit} → {@code __do_softirq}, whose {@code net_rx_action} polls the
   * queue (a budget of frames each, GRO in between) and sends the skbs a poll completes up the
   * host stack through {@code deliverOne}, which takes the next skb from {@code ready[q]}.
   *
   * <p>The bounds of 3.0.27 (kernel/softirq.c {@code __do_softirq}, net/core/dev.c {@code
   * net_rx_action}): one {@code net_rx_action} stops when {@code netdev_budget} = 300 frames are
   * used up or 2 jiffies have passed ({@code time_limit = jiffies + 2}) and re-raises
   * NET_RX_SOFTIRQ; {@code __do_softirq} runs at most {@code MAX_SOFTIRQ_RESTART} = 10 rounds,
   * then {@code wakeup_softirqd}: the queue stays scheduled (its interrupt masked) and the CPU's
   * {@code ksoftirqd} — an ordinary CFS thread at nice 0 ({@code run_ksoftirqd}) — polls it in
   * task context, calling {@code cond_resched} between {@code __do_softirq} runs.
   */
  void buildQueue(int q, VhostNetCosts costs, Program deliverOne) {
    if (ksoftirqd == null) {
      spawnKsoftirqd();
    }
    int budget = config.peerNapiBudget();
    long timeLimitNs = 2 * host.config().tickNs();
    Program poll = Program.named("ixgbe_poll")
        .op(Ops.work(t -> {
          int n = poll(q, budget);
          rxBudget[q] -= n; // net_rx_action: budget -= work
          return (long) n * costs.nicRxPerFrameNs();
        }, "ixgbe_clean_rx_irq"))
        .build();
    Program netRxAction = Program.named("net_rx_action")
        .run(t -> {
          rxBudget[q] = NETDEV_BUDGET;
          rxStart[q] = sim.now();
        })
        .op(Ops.loopCall(t -> {
          if (!ready[q].isEmpty()) {
            return deliverOne;
          }
          if (complete[q]) {
            napiComplete(q);
            return null;
          }
          if (rxBudget[q] <= 0 || sim.now() - rxStart[q] > timeLimitNs) {
            softirqPending[q] = true; // softnet_break: __raise_softirq_irqoff(NET_RX_SOFTIRQ)
            timeSqueezes++;
            return null;
          }
          return poll;
        }))
        .build();
    int cpu = q % host.cpuCount();
    softirq[q] = Program.named("__do_softirq")
        .run(t -> {
          restartsLeft[q] = MAX_SOFTIRQ_RESTART;
          softirqPending[q] = true;
        })
        .op(Ops.loopCall(t -> {
          if (!softirqPending[q]) {
            return null;
          }
          if (restartsLeft[q]-- == 0) { // pending after the last restart: wakeup_softirqd
            softirqPending[q] = false; // still pending for the kernel: ksoftirqd owns it now
            deferred[q] = true;
            return wakeKsoftirqd[cpu];
          }
          softirqPending[q] = false;
          return netRxAction;
        }))
        .build();
    irq[q] = Program.interruptHandler(NicLink.IRQ_SYMBOL)
        .work(costs.nicRxIrqNs(), "handle_irq_event")
        .run(t -> {
          inNapi[q] = true;
          complete[q] = false;
        })
        .call(softirq[q]) // irq_exit -> invoke_softirq
        .build();
    softirqThenResched[q] = Program.named("run_ksoftirqd")
        .call(softirq[q])
        .op(Ops.condResched())
        .build();
  }

  private int nextDeferred(int cpu) {
    int n = host.cpuCount();
    for (int q = cpu; q < hostQueues; q += n) {
      if (deferred[q]) {
        return q;
      }
    }
    return -1;
  }

  /**
   * Creates the host CPUs' {@code ksoftirqd} threads, asleep (kernel/softirq.c 3.0.27 {@code
   * run_ksoftirqd}: sleeps while nothing is pending; while something is, {@code __do_softirq} then
   * {@code cond_resched}). Only a {@code __do_softirq} that ran out of restarts wakes one ({@code
   * wakeup_softirqd}, which skips a thread already TASK_RUNNING).
   */
  private void spawnKsoftirqd() {
    Program sleep = Program.named("schedule").op(Ops.schedule()).build();
    int n = host.cpuCount();
    ksoftirqd = new Task[n];
    wakeKsoftirqd = new Program[n];
    for (int c = 0; c < n; c++) {
      int cpu = c;
      Program wake = Program.named("wake_up_process")
          .run(t -> ksoftirqdWakes++)
          .op(Ops.wake(t -> ksoftirqd[cpu]))
          .build();
      wakeKsoftirqd[c] = Program.named("wakeup_softirqd")
          .op(Ops.call(t -> ksoftirqd[cpu].state() != TaskState.RUNNING ? wake : null))
          .build();
      Program body = Program.named("run_ksoftirqd")
          .op(Ops.setState(TaskState.INTERRUPTIBLE))
          .op(Ops.call(t -> nextDeferred(cpu) < 0 ? sleep : null))
          .op(Ops.setState(TaskState.RUNNING))
          .op(Ops.loopCall(t -> {
            int q = nextDeferred(cpu);
            if (q < 0) {
              return null;
            }
            deferred[q] = false;
            ksoftirqdRuns++;
            return softirqThenResched[q];
          }))
          .build();
      ksoftirqd[c] = host.spawnSleeping("ksoftirqd/" + c,
          Program.named("kthread").op(Ops.loopWhile(t -> true, body)).build(), c);
    }
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
      long avail = Math.min(window, cwnd[f]) - inflight[f]; // tcp_write_xmit: cwnd and rwnd
      if (avail < mss) {
        continue;
      }
      if (resend[f] > 0) {
        bytes = Math.min(Math.min(resend[f], sizeGoal), Math.max(avail / mss * mss, mss));
        resend[f] -= bytes;
      } else {
        bytes = Math.min(avail / mss * mss, sizeGoal);
      }
      inflight[f] += bytes;
      sent[f] += bytes;
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
    if (unreported[flow] > 0) { // the ACK's SACK blocks / duplicate ACKs tell the sender of the hole
      toSender(flow, -unreported[flow]);
      unreported[flow] = 0;
    }
    toSender(flow, acked);
  }

  /**
   * tun_net_xmit found the tap full: the skb is dropped. The sender learns of it only from a later
   * guest ACK of the flow ({@link #ackFromGuest}) or from its retransmission timer ({@link #RTO_MIN_NS}).
   */
  void tapDrop(Packet p) {
    tapDrops++;
    int f = p.flow;
    unreported[f] += p.bytes;
    if (!rtoArmed[f]) {
      rtoArmed[f] = true;
      sim.schedule(RTO_MIN_NS, this, EV_RTO, f);
    }
    pool.release(p);
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
          inflight[f] -= b;
          resolved[f] += b;
          grow(f, b);
        } else {
          inflight[f] += b; // a loss: out of flight, to be resent first
          resend[f] -= b;
          if (resolved[f] >= recover[f]) { // once per window (tcp_enter_recovery / cwr)
            ssthresh[f] = Math.max(cwnd[f] * CUBIC_BETA / 1024, 2L * mss);
            cwnd[f] = ssthresh[f];
            recover[f] = sent[f];
          }
          resolved[f] -= b;
        }
        if (!backAt.isEmpty()) {
          sim.scheduleAt(Math.max(sim.now(), backAt.peek()), this, EV_ACK, 0);
        }
        kickWire();
      }
      case EV_RTO -> { // tcp_retransmit_timer at the sender: no ACK reported the hole
        int f = (int) arg;
        rtoArmed[f] = false;
        if (unreported[f] > 0) {
          inflight[f] -= unreported[f];
          resend[f] += unreported[f];
          resolved[f] += unreported[f];
          unreported[f] = 0;
          ssthresh[f] = Math.max(cwnd[f] * CUBIC_BETA / 1024, 2L * mss); // tcp_enter_loss
          cwnd[f] = mss;
          recover[f] = sent[f];
          kickWire();
        }
      }
      default -> throw new IllegalStateException("unknown guest-receive event " + kind);
    }
  }

  /**
   * An ACK of {@code b} bytes opens {@code flow}'s congestion window: slow start below ssthresh
   * (3.0.27 net/ipv4/tcp_cong.c {@code tcp_slow_start}), then one MSS per window ({@code
   * tcp_cong_avoid_ai}; CUBIC's cubic growth is not modelled), never beyond the receive window.
   */
  private void grow(int f, long b) {
    long c = cwnd[f];
    c += c < ssthresh[f] ? b : Math.max(1, (long) mss * b / c);
    cwnd[f] = Math.min(c, window);
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

  private void arrive(int flow, int bytes) {
    int q = queueOf(flow);
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
    timeSqueezes = ksoftirqdWakes = ksoftirqdRuns = 0;
    fdir.samples = 0;
  }
}

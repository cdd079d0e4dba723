package org.lockvisor.devices.vhostnet;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.ArrayDeque;
import java.util.Arrays;
import org.lockvisor.core.sim.EventHandler;
import org.lockvisor.core.sim.Simulation;

/**
 * The external peer's receive side, as a mechanism: the frames the host NIC puts on the wire reach
 * the peer's NIC, whose RSS spreads flows over its receive queues; each queue raises its interrupt
 * no sooner than the moderation interval after the previous one; the interrupt schedules NAPI,
 * whose poll takes up to its budget of frames that have arrived; GRO merges the frames of one
 * flow within the poll into one skb (at most {@code MAX_SKB_FRAGS} frames and 64 KiB, at most
 * {@code MAX_GRO_SKBS} = 8 flows held, a frame of a further flow passes unmerged); the skbs are
 * flushed when the poll completes; TCP then ACKs each skb that leaves more than one full frame
 * unacknowledged and delays the ACK otherwise.
 *
 * <p>So the ACK rate follows how many frames of one flow share a poll: one stream on one queue
 * fills its GRO skbs, many streams spread over the queues and interleaved on the wire leave fewer
 * frames per flow per poll, smaller skbs and more ACKs.
 *
 * <p>Sources (the era of the seed, 2013): net/core/dev.c 3.0 ({@code napi_gro_receive},
 * {@code dev_gro_receive}: {@code MAX_GRO_SKBS} 8, {@code napi_complete} → {@code napi_gro_flush};
 * {@code net_rx_action} keeps an exhausted NAPI on the poll list without flushing),
 * net/core/skbuff.c ({@code skb_gro_receive}: {@code -E2BIG} at 64 KiB, {@code MAX_SKB_FRAGS}),
 * drivers/net/ixgbe/ixgbe_main.c 3.0 ({@code ixgbe_update_itr}: above 20 bytes/µs a vector is
 * "bulk_latency", {@code ixgbe_set_itr}: 8000 interrupts/s; RSS over up to 16 queues; NAPI weight
 * 64), net/ipv4/tcp_input.c ({@code __tcp_ack_snd_check}: ACK now when more than one full frame
 * ({@code rcv_mss}) is unacknowledged, else the delayed-ACK timer, {@code TCP_DELACK_MIN} 40 ms;
 * and at once while the out-of-order queue holds data, {@code ofo_possible &&
 * skb_peek(&tp->out_of_order_queue)}, and when the gap fills, {@code tcp_data_queue}: "RFC2581.
 * 4.2. SHOULD send immediate ACK, when gap in queue is filled").
 *
 * <p>The hole (issue 32): a packet the host dropped leaves its flow's receiver with a gap from the
 * drop until the retransmitted bytes arrive ({@link #lost}, a retransmission's frames fill it); every
 * skb of the flow meanwhile is ACKed at once. The gap opens at the drop, not when the next frame of
 * the flow arrives (a simplification: the frames queued ahead of the dropped packet are ACKed at once
 * too).
 *
 * <p>Allocation-free after warm-up: frame runs are pooled, per-flow state grows with the flow count.
 */
final class PeerReceiver implements EventHandler {
  /** {@code MAX_GRO_SKBS} in 3.0 net/core/dev.c. */
  static final int MAX_GRO_SKBS = 8;
  /** GRO stops merging before an skb would reach 64 KiB ({@code skb_gro_receive}). */
  static final int GRO_MAX_BYTES = 65536;
  /** {@code TCP_DELACK_MIN} (HZ/25). */
  static final long DELACK_NS = 40_000_000L;

  private static final int EV_IRQ = 1;
  private static final int EV_DELACK = 2;

  /** What the peer's TCP does with a flushed skb's bytes: send an ACK covering them. */
  interface AckSink {
    void ack(int flow, int bytes, long now);
  }

  /** The frames of one TSO packet, back to back on the wire. */
  private static final class Run {
    int flow;
    long start;
    long frameNs;
    long endNs;
    int frames;
    int taken;
    int mss;
    int lastBytes;
    boolean retrans;
    /** The first frame's sequence number, or -1 (the sender numbers nothing). */
    long seq;
    long tsval;

    long arrival(int k) {
      return Math.min(start + (k + 1) * frameNs, endNs);
    }

    int bytes(int k) {
      return k == frames - 1 ? lastBytes : mss;
    }
  }

  private final Simulation sim;
  private final AckSink sink;
  private final int queues;
  private final long irqIntervalNs;
  private final int budget;
  private final ArrayDeque<Run>[] pending;
  private final boolean[] irqScheduled;
  private final long[] lastIrq;
  private final ArrayDeque<Run> pool = new ArrayDeque<>(64);
  // GRO list of the poll in progress (one queue at a time: polls are instants)
  private final GroTable gro;
  private final GroTable.Sink up;
  // per-flow TCP receive state
  private int[] unacked = new int[16];
  private boolean[] delackArmed = new boolean[16];
  /** Bytes missing from the flow's sequence (dropped, not yet retransmitted), and whether a frame filled some this poll. */
  private long[] missing = new long[16];
  private boolean[] holeFilled = new boolean[16];
  private int mss;
  /** Sequence state per flow for senders that number their bytes (iperf recovery 3.0). */
  private final SackReceiver tcp = new SackReceiver();

  // statistics
  private long interrupts;
  private long polls;
  private long frames;
  private long skbs;
  private long acks;
  private long delayedAcks;
  private long bytes;

  @SuppressWarnings("unchecked")
  PeerReceiver(Simulation sim, AckSink sink, int queues, long irqIntervalNs, int budget, int groSegments) {
    checkArgument(queues > 0 && budget > 0 && groSegments > 0 && irqIntervalNs >= 0, "bad peer receive setup");
    this.sim = sim;
    this.sink = sink;
    this.queues = queues;
    this.irqIntervalNs = irqIntervalNs;
    this.budget = budget;
    this.gro = new GroTable(groSegments);
    this.up = (flow, frames, bytes) -> deliver(flow, frames, bytes, sim.now()); // polls are instants
    this.pending = new ArrayDeque[queues];
    for (int q = 0; q < queues; q++) {
      pending[q] = new ArrayDeque<>(16);
    }
    this.irqScheduled = new boolean[queues];
    this.lastIrq = new long[queues];
    Arrays.fill(lastIrq, Long.MIN_VALUE / 4);
  }

  /** The peer's RSS queue of a flow (Toeplitz stands in as a multiplicative hash). */
  int queueOf(int flow) {
    return Math.floorMod(flow * 0x7FEB352D + 0x2C1B3C6D, queues);
  }

  /**
   * A TSO packet of {@code flow} starts on the wire at {@code start}: {@code totalBytes} of payload
   * in frames of {@code frameMss}, each taking {@code frameNs}, the whole ending at {@code endNs}.
   */
  void transmit(int flow, int totalBytes, int frameMss, long start, long frameNs, long endNs) {
    transmit(flow, totalBytes, frameMss, start, frameNs, endNs, false);
  }

  /** The same; {@code retrans}: the packet is a retransmission, whose bytes fill its flow's gap. */
  void transmit(int flow, int totalBytes, int frameMss, long start, long frameNs, long endNs, boolean retrans) {
    transmit(flow, totalBytes, frameMss, start, frameNs, endNs, retrans, -1, -1);
  }

  /**
   * The same for a sender that numbers its bytes: {@code seq} is the first frame's sequence number
   * (the frames follow at {@code frameMss} each); -1 for none. With sequence numbers the peer's
   * TCP tracks {@code rcv_nxt}, its out-of-order queue and SACK blocks ({@link SackReceiver}) and a
   * drop reaches the sender only through them.
   */
  void transmit(int flow, int totalBytes, int frameMss, long start, long frameNs, long endNs, boolean retrans,
      long seq) {
    transmit(flow, totalBytes, frameMss, start, frameNs, endNs, retrans, seq, -1);
  }

  /** The same with the packet's TCP timestamp ({@code tsval}, the sender's clock; -1: none). */
  void transmit(int flow, int totalBytes, int frameMss, long start, long frameNs, long endNs, boolean retrans,
      long seq, long tsval) {
    this.mss = frameMss;
    Run r = pool.poll();
    if (r == null) {
      r = new Run();
    }
    r.flow = flow;
    r.start = start;
    r.frameNs = frameNs;
    r.endNs = endNs;
    r.mss = frameMss;
    r.frames = (totalBytes + frameMss - 1) / frameMss;
    r.lastBytes = totalBytes - (r.frames - 1) * frameMss;
    r.taken = 0;
    r.retrans = retrans;
    r.seq = seq;
    r.tsval = tsval;
    int q = queueOf(flow);
    pending[q].add(r);
    armIrq(q, r.arrival(0));
  }

  private void armIrq(int q, long firstArrival) {
    if (irqScheduled[q]) {
      return;
    }
    irqScheduled[q] = true;
    long at = Math.max(Math.max(firstArrival, lastIrq[q] + irqIntervalNs), sim.now());
    sim.scheduleAt(at, this, EV_IRQ, q);
  }

  @Override
  public void onEvent(int kind, long arg) {
    switch (kind) {
      case EV_IRQ -> interrupt((int) arg);
      case EV_DELACK -> {
        int flow = (int) arg;
        delackArmed[flow] = false;
        if (unacked[flow] > 0) {
          int b = unacked[flow];
          unacked[flow] = 0;
          delayedAcks++;
          acks++;
          sink.ack(flow, b, sim.now());
        }
      }
      default -> throw new IllegalStateException("unknown peer event " + kind);
    }
  }

  /** The queue's interrupt: NAPI polls until fewer than a budget of frames have arrived, then completes. */
  private void interrupt(int q) {
    long now = sim.now();
    irqScheduled[q] = false;
    lastIrq[q] = now;
    interrupts++;
    int done;
    do {
      polls++;
      done = poll(q, now);
    } while (done == budget); // net_rx_action: an exhausted NAPI is polled again, GRO not flushed
    // napi_complete -> napi_gro_flush: every held skb goes up the stack
    gro.flush(up);
    Run next = pending[q].peek();
    if (next != null) {
      armIrq(q, next.arrival(next.taken));
    }
  }

  private int poll(int q, long now) {
    int n = 0;
    ArrayDeque<Run> runs = pending[q];
    while (n < budget) {
      Run r = runs.peek();
      if (r == null || r.arrival(r.taken) > now) {
        break;
      }
      int b = r.bytes(r.taken);
      if (r.seq >= 0 && tcp.receive(r.flow, r.seq + (long) r.taken * r.mss, b, r.tsval)) {
        ensureFlow(r.flow);
        holeFilled[r.flow] = true; // out of order, a gap filled or a duplicate: ACK at once
      }
      r.taken++;
      n++;
      frames++;
      bytes += b;
      if (r.retrans) {
        ensureFlow(r.flow);
        missing[r.flow] = Math.max(0, missing[r.flow] - b);
        holeFilled[r.flow] = true;
      }
      gro.receive(r.flow, b, up);
      if (r.taken == r.frames) {
        runs.poll();
        pool.push(r); // a stack: the next transmit reuses the run still in cache
      }
    }
    return n;
  }

  /** One skb reaches the peer's TCP: ACK now if more than one full frame is unacknowledged. */
  private void deliver(int flow, int frameCount, int b, long now) {
    skbs++;
    ensureFlow(flow);
    unacked[flow] += b;
    boolean outOfOrder = missing[flow] > 0 || holeFilled[flow];
    holeFilled[flow] = false;
    if (unacked[flow] > mss || outOfOrder) {
      int acked = unacked[flow];
      unacked[flow] = 0;
      acks++;
      sink.ack(flow, acked, now);
    } else if (!delackArmed[flow]) {
      delackArmed[flow] = true;
      sim.scheduleAt(now + DELACK_NS, this, EV_DELACK, flow);
    }
  }

  private void ensureFlow(int flow) {
    if (flow >= unacked.length) {
      int n = Math.max(flow + 1, unacked.length * 2);
      unacked = Arrays.copyOf(unacked, n);
      delackArmed = Arrays.copyOf(delackArmed, n);
      missing = Arrays.copyOf(missing, n);
      holeFilled = Arrays.copyOf(holeFilled, n);
    }
  }

  /** The host dropped {@code bytes} of {@code flow}: the flow's receiver has a gap until they are retransmitted. */
  void lost(int flow, int bytes) {
    ensureFlow(flow);
    missing[flow] += bytes;
  }

  /** Writes {@code flow}'s cumulative ACK and SACK blocks into {@code ack} when the flow numbers its bytes. */
  void fillAck(int flow, Packet ack) {
    if (tcp.active(flow)) {
      tcp.fill(flow, ack);
    }
  }

  long interrupts() {
    return interrupts;
  }

  long polls() {
    return polls;
  }

  long frames() {
    return frames;
  }

  long skbs() {
    return skbs;
  }

  long acks() {
    return acks;
  }

  long delayedAcks() {
    return delayedAcks;
  }

  long bytes() {
    return bytes;
  }

  void resetStats() {
    interrupts = polls = frames = skbs = acks = delayedAcks = bytes = 0;
  }
}

package org.lockvisor.devices.vhostnet;

import java.util.ArrayDeque;
import org.lockvisor.core.sim.EventHandler;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Program;

/**
 * The host NIC and what is beyond it: the qdisc ({@code txqueuelen} packets, drops beyond), the
 * link that serialises frames at the line rate, the external peer ({@link PeerReceiver}) whose
 * ACKs (GRO coalesces a TSO burst) come back after {@code ack-delay-ns} — a dropped packet comes
 * back as a duplicate ACK reporting the loss — and the NIC's receive queues: RSS hashes an
 * arriving packet's flow to a queue whose interrupt ({@code ixgbe_msix_clean_rings}, built by the
 * vhost side) runs NAPI on that queue's host CPU.
 *
 * <p>Transmit queues (issue 32, option {@code host-atr}; {@link FlowDirector}): with ATR each CPU
 * transmits on its own queue ({@code ixgbe_select_queue}: {@code smp_processor_id()}), each with
 * its own drop-tail qdisc of {@code txqueuelen} packets (the {@code mq} root's per-queue children),
 * and the peer's ACKs of a flow come back on the queue of the CPU that last transmitted for it
 * ({@code ixgbe_atr}). The NIC serves its non-empty transmit queues in turn, one frame each, so when
 * the worker has moved and two queues hold packets their TSO bursts interleave on the wire [the
 * 82599's transmit arbitration granularity is not verified here; the same premise as the external
 * sender of guest-receive]. A packet that starts while it is alone on the wire goes out whole (as
 * before issue 32, one event); interleaving starts at the next packet boundary.
 *
 * <p>Split out of {@link VhostNet}.
 */
final class NicLink implements EventHandler {
  /** The host ixgbe's per-queue MSI-X handler (3.0.27 drivers/net/ixgbe/ixgbe_main.c): a queue's NAPI starts there. */
  static final String IRQ_SYMBOL = "ixgbe_msix_clean_rings";
  private static final int EV_LINK_DONE = 1;
  private static final int EV_ACK_ARRIVE = 2;
  private static final int EV_DUP_ARRIVE = 3;

  private final Simulation sim;
  private final Kernel host;
  private final VhostNetConfig config;
  private final Packet.Pool pool;
  private final VhostNetCounters stats;
  private final PeerReceiver peer;
  private final ArrayDeque<Packet>[] txq;
  /** Payload bytes of each transmit queue's head packet already on the wire (frame by frame). */
  private final int[] headSent;
  private final FlowDirector fdir;
  private int nonEmpty;
  private int rr;
  private int wireQueue;
  private boolean wireDone;
  /** Frames sent one at a time because another transmit queue held packets too. */
  long interleavedFrames;
  private final ArrayDeque<Packet> ackQueue = new ArrayDeque<>(1024);
  private final ArrayDeque<Packet> dupQueue = new ArrayDeque<>(256);
  private final ArrayDeque<Packet>[] nicPending;
  private final boolean[] napiScheduled;
  private final Program[] nicIrq;
  private boolean linkBusy;
  private long linkTailFinish;

  @SuppressWarnings("unchecked")
  NicLink(Simulation sim, Kernel host, VhostNetConfig config, Packet.Pool pool, VhostNetCounters stats) {
    this.sim = sim;
    this.host = host;
    this.config = config;
    this.pool = pool;
    this.stats = stats;
    this.peer = new PeerReceiver(sim, (flow, bytes, now) -> {
      Packet ack = pool.allocAck(flow, Packet.ACK_WIRE_BYTES);
      ack.acked = bytes;
      peer().fillAck(flow, ack);
      stats.deliveredBytes += bytes;
      scheduleAck(ack, now + config.ackDelayNs());
    }, config.peerQueues(), config.peerIrqIntervalNs(), config.peerNapiBudget(), config.peerGroSegments());
    int queues = config.nicQueues() == 0 ? host.cpuCount() : config.nicQueues();
    this.fdir = new FlowDirector(config.hostAtr(), queues);
    this.txq = new ArrayDeque[queues];
    for (int q = 0; q < queues; q++) {
      txq[q] = new ArrayDeque<>(q == 0 ? 1024 : 16);
    }
    this.headSent = new int[queues];
    this.nicPending = new ArrayDeque[queues];
    this.napiScheduled = new boolean[queues];
    this.nicIrq = new Program[queues];
  }

  PeerReceiver peer() {
    return peer;
  }

  FlowDirector flowDirector() {
    return fdir;
  }

  /** The number of NIC receive queues. */
  int queues() {
    return nicPending.length;
  }

  /** Installs queue {@code q}'s interrupt handler and its pending list (NAPI takes from it). */
  void receiveQueue(int q, ArrayDeque<Packet> pending, Program irq) {
    nicPending[q] = pending;
    nicIrq[q] = irq;
  }

  /** NAPI found queue {@code q} empty: the next packet raises its interrupt again. */
  void napiComplete(int q) {
    napiScheduled[q] = false;
  }

  /** Guest-receive (issue 32): the external sender and the host NIC's receive queues, or null. */
  GuestReceive guestReceive;

  /**
   * The host stack hands a guest packet to the NIC from {@code cpu}: the qdisc queues it for the
   * link, or drops it; in the guest-receive direction it is the guest's ACK, which goes to the
   * external sender through the queue of {@code cpu} (ATR samples it).
   */
  void enqueue(Packet p, int cpu) {
    if (guestReceive != null) {
      guestReceive.ackFromGuest(p.flow, p.acked, cpu);
      pool.release(p);
      return;
    }
    long now = sim.now();
    int q = fdir.transmit(p.flow, cpu);
    if (txq[q].size() >= config.txQueueLen()) {
      stats.qdiscDrops++;
      if (p.seq >= 0) {
        pool.release(p); // a numbered flow learns of it from the peer's SACK blocks or its RTO
        return;
      }
      Packet dup = pool.allocAck(p.flow, Packet.ACK_WIRE_BYTES);
      dup.lost = p.bytes;
      peer.lost(p.flow, p.bytes);
      pool.release(p);
      // the peer notices the hole when the packets queued ahead of it arrive (duplicate ACKs)
      dup.readyAt = Math.max(now, linkTailFinish) + config.ackDelayNs();
      boolean wasEmpty = dupQueue.isEmpty();
      dupQueue.add(dup); // its own FIFO: duplicate ACK times grow with the queue's tail, not with data ACKs
      if (wasEmpty) {
        sim.scheduleAt(dup.readyAt, this, EV_DUP_ARRIVE, 0);
      }
      return;
    }
    txq[q].add(p);
    if (txq[q].size() == 1) {
      nonEmpty++;
    }
    linkTailFinish = Math.max(now, linkTailFinish) + wireNs(p.bytes);
    if (!linkBusy) {
      startTransmit();
    }
  }

  private long wireNs(int bytes) {
    long frames = (bytes + config.mss() - 1) / config.mss();
    long wireBytes = bytes + frames * config.frameOverhead();
    return Math.max(1, wireBytes * 8000 / config.lineRateMbps());
  }

  /** The next transmit queue in turn puts its head packet on the wire: whole if it is alone, else one frame. */
  private void startTransmit() {
    int n = txq.length;
    int q = rr;
    while (txq[q].isEmpty()) {
      q = (q + 1) % n;
    }
    rr = (q + 1) % n;
    wireQueue = q;
    Packet p = txq[q].peek();
    linkBusy = true;
    long now = sim.now();
    if (nonEmpty == 1 && headSent[q] == 0) {
      long total = wireNs(p.bytes);
      peer.transmit(p.flow, p.bytes, config.mss(), now, wireNs(config.mss()), now + total, p.retrans, p.seq,
          p.tsval);
      wireDone = true;
      sim.schedule(total, this, EV_LINK_DONE, 0);
      return;
    }
    int b = Math.min(config.mss(), p.bytes - headSent[q]);
    long ns = wireNs(b);
    peer.transmit(p.flow, b, config.mss(), now, ns, now + ns, p.retrans,
        p.seq < 0 ? -1 : p.seq + headSent[q], p.tsval);
    headSent[q] += b;
    wireDone = headSent[q] == p.bytes;
    interleavedFrames++;
    sim.schedule(ns, this, EV_LINK_DONE, 0);
  }

  private void scheduleAck(Packet p, long at) {
    p.readyAt = at;
    boolean wasEmpty = ackQueue.isEmpty();
    ackQueue.add(p);
    if (wasEmpty) {
      sim.scheduleAt(at, this, EV_ACK_ARRIVE, 0);
    }
  }

  @Override
  public void onEvent(int kind, long arg) {
    switch (kind) {
      case EV_LINK_DONE -> {
        // the head packet's last frame (or one frame of it) is on the wire; the peer receives it
        if (wireDone) {
          int q = wireQueue;
          pool.release(txq[q].poll());
          headSent[q] = 0;
          if (txq[q].isEmpty()) {
            nonEmpty--;
          }
        }
        if (nonEmpty == 0) {
          linkBusy = false;
        } else {
          startTransmit();
        }
      }
      case EV_DUP_ARRIVE -> {
        nicReceive(dupQueue.poll());
        Packet next = dupQueue.peek();
        if (next != null) {
          sim.scheduleAt(Math.max(next.readyAt, sim.now()), this, EV_DUP_ARRIVE, 0);
        }
      }
      case EV_ACK_ARRIVE -> {
        nicReceive(ackQueue.poll());
        Packet next = ackQueue.peek();
        if (next != null) {
          sim.scheduleAt(Math.max(next.readyAt, sim.now()), this, EV_ACK_ARRIVE, 0);
        }
      }
      default -> throw new IllegalStateException("unknown vhost-net event " + kind);
    }
  }

  /** A packet from the peer reaches the host NIC: RSS picks the queue, NAPI is scheduled on its CPU. */
  private void nicReceive(Packet p) {
    int q = fdir.receiveQueue(p.flow);
    nicPending[q].add(p);
    if (!napiScheduled[q]) {
      napiScheduled[q] = true;
      host.cpu(q % host.cpuCount()).raiseInterrupt(nicIrq[q]);
    }
  }
}

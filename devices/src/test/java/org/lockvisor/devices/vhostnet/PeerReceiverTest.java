package org.lockvisor.devices.vhostnet;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.lockvisor.core.sim.Simulation;

/**
 * The peer's receive side: interrupt moderation gathers frames into NAPI polls, GRO merges the
 * frames of one flow within a poll, and TCP ACKs each skb that leaves more than one full frame
 * unacknowledged. Frames of one flow fill the GRO skbs; the same bytes from many flows interleaved
 * on the wire and spread over the queues leave fewer frames per flow per poll and more ACKs.
 */
class PeerReceiverTest {
  private static final int MSS = 1448;
  private static final long FRAME_NS = 1230; // 1538 wire bytes at 10 Gbit/s
  private static final int TSO = 44 * MSS;

  /** {@code packets} TSO packets back to back, flow of packet i = i % flows; returns the ACKs. */
  private static long acks(int flows, int queues, int packets) {
    Simulation sim = new Simulation(1);
    long[] acks = {0};
    PeerReceiver peer = new PeerReceiver(sim, (flow, bytes, now) -> acks[0]++, queues, 125_000, 64, 17);
    long t = 0;
    long packetNs = 44 * FRAME_NS;
    for (int i = 0; i < packets; i++) {
      final long start = t;
      final int flow = i % flows;
      sim.scheduleAt(start, (k, a) -> peer.transmit(flow, TSO, MSS, start, FRAME_NS, start + packetNs), 0, 0);
      t += packetNs;
    }
    sim.runUntil(t + 1_000_000_000L);
    return acks[0];
  }

  @Test
  void oneFlow_fullGroSkbs_oneAckPerSeventeenFrames() {
    long a = acks(1, 16, 200);

    // 200 x 44 frames in skbs of at most 17 frames: at least 8800 / 17 ACKs, few more
    assertThat(a).isBetween(8800L / 17, 8800L / 17 * 12 / 10);
  }

  @Test
  void manyFlowsSharingPolls_ackRateRises() {
    long one = acks(1, 16, 256);
    long many = acks(64, 16, 256);

    assertThat(many).isGreaterThan(one);
  }

  @Test
  void singleFrameSkb_delaysItsAck_untilTheNextFrameOrTheTimer() {
    Simulation sim = new Simulation(1);
    long[] acked = {0, 0};
    PeerReceiver peer = new PeerReceiver(sim, (flow, bytes, now) -> {
      acked[0]++;
      acked[1] = now;
    }, 1, 125_000, 64, 17);
    sim.scheduleAt(0, (k, a) -> peer.transmit(0, MSS, MSS, 0, FRAME_NS, FRAME_NS), 0, 0);
    sim.runUntil(1_000_000);
    assertThat(acked[0]).isZero();
    sim.runUntil(100_000_000);
    assertThat(acked[0]).isEqualTo(1);
    assertThat(acked[1]).isEqualTo(FRAME_NS + PeerReceiver.DELACK_NS);
  }

  /**
   * 3.0.27 tcp_input.c __tcp_ack_snd_check: "(ofo_possible && skb_peek(&tp->out_of_order_queue))"
   * sends the ACK at once: with a gap in its flow, a single-frame skb is ACKed at once, and so is the
   * retransmission that fills the gap; afterwards the delayed ACK is back.
   */
  @Test
  void gapInTheFlow_singleFrameSkbsAckedAtOnce_untilTheRetransmissionFillsIt() {
    Simulation sim = new Simulation(1);
    long[] acked = {0};
    PeerReceiver peer = new PeerReceiver(sim, (flow, bytes, now) -> acked[0]++, 1, 125_000, 64, 17);
    peer.lost(0, MSS);
    sim.scheduleAt(0, (k, a) -> peer.transmit(0, MSS, MSS, 0, FRAME_NS, FRAME_NS), 0, 0);
    sim.runUntil(1_000_000);
    assertThat(acked[0]).isEqualTo(1); // out of order: no delayed ACK
    sim.scheduleAt(1_000_000, (k, a) -> peer.transmit(0, MSS, MSS, 1_000_000, FRAME_NS, 1_000_000 + FRAME_NS, true),
        0, 0);
    sim.runUntil(2_000_000);
    assertThat(acked[0]).isEqualTo(2); // the gap filled: ACK at once
    sim.scheduleAt(2_000_000, (k, a) -> peer.transmit(0, MSS, MSS, 2_000_000, FRAME_NS, 2_000_000 + FRAME_NS), 0, 0);
    sim.runUntil(3_000_000);
    assertThat(acked[0]).isEqualTo(2); // in order again: delayed
  }

  /**
   * A numbered flow (iperf recovery 3.0): a TSO packet lost before the wire leaves the next one's
   * frames out of order, each skb ACKed at once with the cumulative ACK at the hole and a SACK block
   * for what arrived (3.0.27 tcp_data_queue, tcp_sack_new_ofo_skb); a retransmitted frame moves the
   * cumulative ACK; nothing is reported for the drop itself.
   */
  @Test
  void numberedFlow_lossShowsOnlyAsTheHoleInTheAcks() {
    Simulation sim = new Simulation(1);
    Packet last = new Packet();
    long[] acks = {0};
    PeerReceiver[] peer = new PeerReceiver[1];
    peer[0] = new PeerReceiver(sim, (flow, bytes, now) -> {
      acks[0]++;
      peer[0].fillAck(flow, last);
    }, 1, 125_000, 64, 17);
    long pkt = 4L * MSS;
    // packet 0 [0, 4 MSS) arrives, packet 1 [4, 8) is dropped by the host, packet 2 [8, 12) arrives
    sim.scheduleAt(0, (k, a) -> peer[0].transmit(0, (int) pkt, MSS, 0, FRAME_NS, 4 * FRAME_NS, false, 0), 0, 0);
    sim.scheduleAt(10_000, (k, a) -> peer[0].transmit(0, (int) pkt, MSS, 10_000, FRAME_NS, 10_000 + 4 * FRAME_NS,
        false, 2 * pkt), 0, 0);
    sim.runUntil(1_000_000);
    assertThat(acks[0]).isPositive();
    assertThat(last.ackSeq).isEqualTo(pkt);
    assertThat(last.sacks).isEqualTo(1);
    assertThat(last.sack[0]).isEqualTo(2 * pkt);
    assertThat(last.sack[1]).isEqualTo(3 * pkt);
    sim.scheduleAt(2_000_000, (k, a) -> peer[0].transmit(0, MSS, MSS, 2_000_000, FRAME_NS, 2_000_000 + FRAME_NS,
        true, pkt), 0, 0); // one MSS of the hole again
    sim.runUntil(3_000_000);
    assertThat(last.ackSeq).isEqualTo(pkt + MSS); // sent at once: the out-of-order queue holds data
    assertThat(last.sacks).isEqualTo(1);
  }
}

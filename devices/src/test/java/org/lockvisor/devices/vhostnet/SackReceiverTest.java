package org.lockvisor.devices.vhostnet;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The peer's rcv_nxt, out-of-order queue and SACK blocks after 3.0.27 net/ipv4/tcp_input.c
 * ({@code tcp_data_queue}, {@code tcp_sack_new_ofo_skb}, {@code tcp_sack_remove}) and the three
 * blocks that fit beside the timestamp option ({@code tcp_established_options}).
 */
class SackReceiverTest {
  private static final int MSS = 1000;

  private static Packet ack(SackReceiver r, int flow) {
    Packet p = new Packet();
    r.fill(flow, p);
    return p;
  }

  @Test
  void inOrderData_advancesRcvNxt_withoutAnImmediateAck() {
    SackReceiver r = new SackReceiver();
    assertThat(r.receive(0, 0, MSS)).isFalse();
    assertThat(r.receive(0, MSS, MSS)).isFalse();
    Packet a = ack(r, 0);
    assertThat(a.ackSeq).isEqualTo(2 * MSS);
    assertThat(a.sacks).isZero();
  }

  @Test
  void dataBeyondAHole_isSackedAtOnce_andTheFilledHoleClearsTheBlocks() {
    SackReceiver r = new SackReceiver();
    r.receive(3, 0, MSS);
    assertThat(r.receive(3, 2 * MSS, MSS)).isTrue(); // segment 1 dropped: out of order, ACK now
    assertThat(r.receive(3, 3 * MSS, MSS)).isTrue(); // still a gap: ACK now
    Packet a = ack(r, 3);
    assertThat(a.ackSeq).isEqualTo(MSS); // cumulative ACK stays at the hole
    assertThat(a.sacks).isEqualTo(1);
    assertThat(a.sack[0]).isEqualTo(2 * MSS);
    assertThat(a.sack[1]).isEqualTo(4 * MSS); // tcp_sack_extend grew the block
    assertThat(r.receive(3, MSS, MSS)).isTrue(); // the retransmission fills the gap: ACK now
    a = ack(r, 3);
    assertThat(a.ackSeq).isEqualTo(4 * MSS); // tcp_ofo_queue moved the queued data
    assertThat(a.sacks).isZero(); // tcp_sack_remove: the queue is empty
    assertThat(r.receive(3, 0, MSS)).isTrue(); // a duplicate: ACK now
  }

  @Test
  void fourHoles_keepFourBlocks_sendTheThreeMostRecent_newestFirst() {
    SackReceiver r = new SackReceiver();
    r.receive(0, 0, MSS);
    for (int k = 2; k <= 8; k += 2) { // holes at segments 1, 3, 5, 7
      r.receive(0, (long) k * MSS, MSS);
    }
    Packet a = ack(r, 0);
    assertThat(a.ackSeq).isEqualTo(MSS);
    assertThat(a.sacks).isEqualTo(3);
    assertThat(a.sack[0]).isEqualTo(8 * MSS); // the newest block first
    assertThat(a.sack[2]).isEqualTo(6 * MSS);
    assertThat(a.sack[4]).isEqualTo(4 * MSS);
    r.receive(0, 5 * MSS, MSS); // fills hole 5: blocks [4,5) and [6,7) coalesce into the front one
    a = ack(r, 0);
    assertThat(a.sack[0]).isEqualTo(4 * MSS);
    assertThat(a.sack[1]).isEqualTo(7 * MSS);
    assertThat(a.sacks).isEqualTo(3); // [4,7), [8,9), [2,3)
    assertThat(a.sack[2]).isEqualTo(8 * MSS);
    assertThat(a.sack[4]).isEqualTo(2 * MSS);
  }
}

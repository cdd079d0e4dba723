package org.lockvisor.workloads.iperf;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The 3.0.27 SACK/FACK sender (net/ipv4/tcp_input.c, tcp_output.c, tcp_timer.c, tcp_cubic.c), fed
 * ACKs as the peer builds them: cumulative ACK and SACK blocks of what arrived beyond a hole.
 * Expected values come from the source's rules, not from the model's output.
 */
class SackSenderTest {
  private static final int MSS = 1000;
  private static final long TICK = 1_000_000L; // HZ 1000
  private static final long US = 1000L;

  /** A sender with {@code segments} full segments out and cwnd {@code cwnd}, in CA (ssthresh below cwnd). */
  private static SackSender sent(int cwnd, int segments) {
    SackSender s = new SackSender(MSS, cwnd, 64L << 20, TICK);
    s.sendNew(segments * MSS, 0);
    return s;
  }

  private static boolean ack(SackSender s, long ack, long... blocks) {
    return s.onAck(ack, blocks, blocks.length / 2, 1_000 * US);
  }

  private static boolean ack(SackSender s, long ack, long[] b1, long[] b2) {
    return ack(s, ack, b1[0], b1[1], b2[0], b2[1]);
  }

  /** SACK of segments [from, to) (segment numbers). */
  private static long[] seg(int from, int to) {
    return new long[] {(long) from * MSS, (long) to * MSS};
  }

  /**
   * tcp_time_to_recover with FACK: "tcp_dupack_heuristics(tp) > tp->reordering", fackets_out
   * counting from snd_una to the highest SACKed segment; reordering = TCP_FASTRETRANS_THRESH = 3.
   */
  @Test
  void lossIsDetectedOnlyWhenSackedDataPassesTheReorderingThreshold() {
    SackSender s = sent(20, 20); // segment 0 is lost
    ack(s, 0, seg(1, 2)); // fackets_out 2
    ack(s, 0, seg(1, 3)); // 3
    assertThat(s.q.facketsOut).isEqualTo(3);
    assertThat(s.state).isNotEqualTo(SackSender.RECOVERY);
    assertThat(s.q.lostOut).isZero();
    assertThat(s.nextRetransmit()).isEqualTo(-1);
    assertThat(s.cwnd()).isLessThanOrEqualTo(s.inFlight() + SackSender.SYSCTL_REORDERING); // tcp_moderate_cwnd in Disorder
    ack(s, 0, seg(1, 4)); // fackets_out 4 > 3
    assertThat(s.state).isEqualTo(SackSender.RECOVERY);
    assertThat(s.q.lostOut).isEqualTo(1); // FACK: fackets_out - reordering = 1 segment marked, the head
    assertThat(s.tagForTest(0) & SackScoreboard.LOST).isNotZero();
    assertThat(s.nextRetransmit()).isZero();
  }

  /** tcp_update_scoreboard with FACK: every segment not SACKed below fackets_out - reordering is lost. */
  @Test
  void fackMarksEveryHoleBelowTheForwardMostSackLessReordering() {
    SackSender s = sent(30, 30); // segments 0 and 5 are lost
    ack(s, 0, seg(6, 13), seg(1, 5)); // fackets_out 13: lost = 10 counted from the head
    assertThat(s.state).isEqualTo(SackSender.RECOVERY);
    assertThat(s.q.lostOut).isEqualTo(2);
    assertThat(s.tagForTest(0) & SackScoreboard.LOST).isNotZero();
    assertThat(s.tagForTest(5) & SackScoreboard.LOST).isNotZero();
    assertThat(s.tagForTest(13) & SackScoreboard.LOST).isZero(); // not SACKed, but beyond the FACK line
  }

  /**
   * tcp_fastretrans_alert enters Recovery once ("Otherwise enter Recovery state", only from Open or
   * Disorder); ssthresh from bictcp_recalc_ssthresh (cwnd * 717 / 1024) once; tcp_cwnd_down then
   * takes at most one segment per two ACKs and clamps cwnd to in flight + 1.
   */
  @Test
  void aSingleHoleEntersRecoveryOnce_andCutsCwndOncePerWindow_evenWithManyDupAcks() {
    SackSender s = sent(40, 40);
    for (int k = 2; k <= 40; k++) {
      ack(s, 0, seg(1, k)); // 39 duplicate ACKs, each SACKing one more segment
    }
    assertThat(s.recoveries).isEqualTo(1);
    assertThat(s.ssthresh()).isEqualTo(40 * 717 / 1024); // 28, one multiplicative decrease
    assertThat(s.cwnd()).isLessThanOrEqualTo(s.inFlight() + 1);
    assertThat(s.cwnd()).isGreaterThanOrEqualTo(1);
    // the hole's retransmission arrives: one Recovery, one reduction for the whole window
    s.retransmitted(0, 2_000 * US);
    s.sendNew(10 * MSS, 2_000 * US);
    ack(s, 40 * MSS, seg(40, 41));
    assertThat(s.recoveries).isEqualTo(1);
    assertThat(s.ssthresh()).isEqualTo(28);
    assertThat(s.state).isNotEqualTo(SackSender.RECOVERY);
  }

  /**
   * Reordering, not loss (tcp_sacktag_one: "New sack for not retransmitted frame, which was in
   * hole. It is reordering"; tcp_clean_rtx_queue: "Non-retransmitted hole got filled?"): the
   * delayed original fills the hole, tcp_update_reordering raises reordering and disables FACK,
   * the retransmission comes back as a D-SACK (undo_retrans 0) and tcp_try_undo_recovery restores
   * cwnd (tcp_undo_cwr, CUBIC's undo_cwnd = max(cwnd, last_max_cwnd)).
   */
  @Test
  void aDelayedOriginal_raisesReordering_andTheDsackUndoesTheReduction() {
    SackSender s = sent(40, 40);
    ack(s, 0, seg(3, 10)); // segments 0-2 late, fackets_out 10 > 3: Recovery, all three marked lost
    assertThat(s.state).isEqualTo(SackSender.RECOVERY);
    assertThat(s.q.lostOut).isEqualTo(3);
    assertThat(s.ssthresh()).isEqualTo(40 * 717 / 1024);
    s.retransmitted(s.nextRetransmit(), 0); // the head goes again; 1 and 2 not yet (cwnd)
    s.sendNew(30 * MSS, 0);
    ack(s, 10 * MSS); // the late originals arrive: a hole never retransmitted got filled
    assertThat(s.q.reordering).isEqualTo(10 - 1); // fackets_out - the filled hole's position
    assertThat(s.q.fack).isFalse();
    ack(s, 40 * MSS, 0, MSS); // the head's retransmission comes back as a D-SACK below the ACK
    assertThat(s.state).isNotEqualTo(SackSender.RECOVERY);
    assertThat(s.undos).isEqualTo(1);
    assertThat(s.cwnd()).isGreaterThan(40 * 717 / 1024); // the reduction is undone
  }

  /** tcp_retransmit_skb: "if (skb->len > cur_mss) tcp_fragment(sk, skb, cur_mss, cur_mss)". */
  @Test
  void retransmissionsAreOneMssEach_clampedByCwnd() {
    SackSender s = new SackSender(1448, 60, 64L << 20, TICK);
    s.sendNew(45 * 1448, 0); // one TSO packet
    s.sendNew(45 * 1448, 0); // a second one, the first is dropped whole
    ack(s, 0, new long[] {45 * 1448L, 50 * 1448L});
    assertThat(s.state).isEqualTo(SackSender.RECOVERY);
    int sentNow = 0;
    long k;
    while ((k = s.nextRetransmit()) >= 0) {
      assertThat(s.q.endOf(k) - s.q.startOf(k)).isEqualTo(1448);
      s.retransmitted(k, 0);
      sentNow++;
    }
    assertThat(sentNow).isPositive();
    assertThat(s.inFlight()).isLessThanOrEqualTo(s.cwnd()); // tcp_xmit_retransmit_queue stops at cwnd
  }

  /** A segment retransmitted is not sent again until tcp_mark_lost_retrans or the RTO says so. */
  @Test
  void aRetransmittedSegmentIsLostAgainOnlyWhenSacksPassWhatWasSentAfterIt() {
    SackSender s = sent(20, 20);
    ack(s, 0, seg(1, 5));
    long k = s.nextRetransmit();
    assertThat(k).isZero();
    s.retransmitted(k, 0);
    assertThat(s.nextRetransmit()).isEqualTo(-1);
    ack(s, 0, seg(1, 12)); // SACKs of data sent before the retransmission: it may still arrive
    assertThat(s.tagForTest(0) & SackScoreboard.RETRANS).isNotZero();
    s.sendNew(5 * MSS, 0); // segments 20..24 leave after the retransmission
    ack(s, 0, seg(1, 12), seg(12, 22)); // the peer got data sent after it: it was lost again
    assertThat(s.tagForTest(0) & SackScoreboard.RETRANS).isZero();
    assertThat(s.tagForTest(0) & SackScoreboard.LOST).isNotZero();
  }

  /**
   * tcp_retransmit_timer: tcp_enter_loss (cwnd 1, everything not SACKed lost), the head again,
   * icsk_rto = min(icsk_rto << 1, TCP_RTO_MAX); tcp_set_rto's floor TCP_RTO_MIN = HZ/5.
   */
  @Test
  void noAck_timesOut_withBackoff_andRetransmitsTheHead() {
    SackSender s = sent(10, 10);
    s.rttSample(100 * US, 20 * US);
    long rto = s.rtoNs; // srtt + max(4 rttvar, TCP_RTO_MIN)
    assertThat(rto).isBetween(200_000_000L, 201_000_000L);
    assertThat(s.onTimeout(rto)).isTrue(); // no ACK for an RTO
    assertThat(s.state).isEqualTo(SackSender.LOSS);
    assertThat(s.cwnd()).isEqualTo(1);
    assertThat(s.q.lostOut).isEqualTo(10);
    assertThat(s.rtoNs).isEqualTo(2 * rto);
    assertThat(s.nextRetransmit()).isZero();
    s.retransmitted(0, rto);
    assertThat(s.nextRetransmit()).isEqualTo(-1); // cwnd 1
    long t2 = s.timerNs;
    assertThat(t2).isEqualTo(rto + 2 * rto);
    assertThat(s.onTimeout(t2)).isTrue();
    assertThat(s.rtoNs).isEqualTo(4 * rto);
    assertThat(s.timeouts).isEqualTo(2);
    // the head's ACK: slow start from 1 in Loss, the next lost segment goes
    s.retransmitted(0, t2);
    ack(s, MSS);
    assertThat(s.cwnd()).isEqualTo(2);
    assertThat(s.state).isEqualTo(SackSender.LOSS);
    assertThat(s.nextRetransmit()).isEqualTo(1);
  }

  /** tcp_fastretrans_alert: "State can be terminated when high_seq is ACKed"; tcp_complete_cwr: cwnd = ssthresh. */
  @Test
  void recoveryEndsWhenSndUnaReachesHighSeq() {
    SackSender s = sent(40, 40);
    ack(s, 0, seg(1, 6));
    assertThat(s.state).isEqualTo(SackSender.RECOVERY);
    long highSeq = s.highSeq;
    assertThat(highSeq).isEqualTo(40 * MSS);
    s.retransmitted(s.nextRetransmit(), 0);
    s.sendNew(5 * MSS, 0);
    ack(s, 39 * MSS); // below high_seq: still Recovery
    assertThat(s.state).isEqualTo(SackSender.RECOVERY);
    ack(s, 40 * MSS);
    assertThat(s.state).isNotEqualTo(SackSender.RECOVERY);
    assertThat(s.cwnd()).isLessThanOrEqualTo(s.ssthresh());
  }

  /** With no loss, ACKs in CA grow cwnd; a clean window never enters Recovery. */
  @Test
  void cleanAcks_growCwnd_inSlowStartOnePerAck() {
    SackSender s = sent(10, 10);
    ack(s, 2 * MSS);
    ack(s, 4 * MSS);
    assertThat(s.cwnd()).isEqualTo(12); // tcp_slow_start without ABC: one segment per ACK
    assertThat(s.state).isEqualTo(SackSender.OPEN);
    assertThat(s.recoveries).isZero();
  }

  /**
   * tcp_packet_delayed with timestamps: "before(tp->rx_opt.rcv_tsecr, tp->retrans_stamp)". A partial
   * ACK echoing the original's TSval (older than the first retransmission's jiffy) is undone at once
   * by tcp_try_undo_partial (which also raises reordering to fackets_out + acked); one echoing the
   * retransmission's is not.
   */
  @Test
  void aPartialAckEchoingTheOriginalsTimestamp_undoesTheCut_theRetransmissionsDoesNot() {
    for (boolean original : new boolean[] {true, false}) {
      SackSender s = sent(40, 40); // sent at t = 0
      ack(s, 0, seg(3, 10));
      assertThat(s.state).isEqualTo(SackSender.RECOVERY);
      long rexmitAt = 5_000 * US; // five jiffies later at HZ 1000
      s.retransmitted(s.nextRetransmit(), rexmitAt);
      s.sendNew(30 * MSS, rexmitAt);
      s.onAck(10 * MSS, new long[0], 0, original ? 0 : rexmitAt, 6_000 * US);
      if (original) {
        assertThat(s.undos).isEqualTo(1);
        assertThat(s.q.reordering).isEqualTo(10); // fackets_out 0 + 10 acked
        assertThat(s.cwnd()).isGreaterThan(40 * 717 / 1024);
      } else {
        assertThat(s.undos).isZero();
        assertThat(s.q.reordering).isEqualTo(9); // from the hole filled without retransmission
      }
    }
  }
}

package org.lockvisor.workloads.iperf;

/**
 * One guest TCP stream's sender with iperf {@code recovery: 3.0}: Linux 3.0.27's congestion state
 * machine over a SACK scoreboard ({@link SackScoreboard}), the retransmission timer and CUBIC
 * ({@link CongestionWindow}, {@link org.lockvisor.devices.tcp.Cubic}), read in the 3.0.27 tree
 * (net/ipv4/tcp_input.c, tcp_output.c, tcp_timer.c, tcp_cong.c, tcp_cubic.c) with that era's defaults: {@code sysctl_tcp_sack} = 1,
 * {@code sysctl_tcp_fack} = 1, {@code sysctl_tcp_reordering} = {@code TCP_FASTRETRANS_THRESH} = 3,
 * {@code sysctl_tcp_dsack} = 1, timestamps on, CUBIC.
 *
 * <ul>
 *   <li>{@code tcp_ack}: {@code snd_una} advances, the SACK blocks are tagged
 *       ({@code tcp_sacktag_write_queue}), the acknowledged head freed and the RTO rearmed
 *       ({@code tcp_clean_rtx_queue}, {@code tcp_rearm_rto}); {@code tcp_cong_avoid} unless in
 *       Recovery ({@code tcp_may_raise_cwnd}); {@code tcp_fastretrans_alert} when the ACK is dubious
 *       ({@code tcp_ack_is_dubious}: a duplicate, SACK information, or not Open).
 *   <li>{@code tcp_fastretrans_alert}: Recovery is entered once per window, when
 *       {@code tcp_time_to_recover} (a segment lost, or {@code fackets_out} — {@code sacked_out + 1}
 *       without FACK — above {@code reordering}); {@code prior_ssthresh}, ssthresh from CUBIC
 *       (cwnd × 717 / 1024), {@code high_seq} = {@code snd_nxt}, undo marker; then every dubious
 *       ACK {@code tcp_update_scoreboard} (FACK: the first {@code fackets_out - reordering} segments
 *       not SACKed are lost; SACK: by {@code sacked_out}), {@code tcp_cwnd_down} (one segment off
 *       per two ACKs of progress while above ssthresh, at most in flight + 1) and
 *       {@code tcp_xmit_retransmit_queue}. Recovery ends when {@code snd_una} reaches
 *       {@code high_seq} ({@code tcp_complete_cwr}: cwnd = ssthresh), through Disorder
 *       ({@code tcp_try_keep_open}; {@code tcp_moderate_cwnd}: cwnd at most in flight +
 *       {@code tcp_max_burst}).
 *   <li>Reordering ({@code tcp_update_reordering}): a never-retransmitted segment SACKed or
 *       acknowledged inside a hole raises {@code reordering} (up to 127) and turns FACK off; the
 *       reduction is undone ({@code tcp_undo_cwr}: CUBIC's {@code undo_cwnd}, {@code prior_ssthresh})
 *       when D-SACKs account for every retransmission ({@code undo_retrans} 0), none was made
 *       ({@code retrans_stamp} 0) or the ACK's TSecr predates the first retransmission
 *       ({@code tcp_packet_delayed}): {@code tcp_try_undo_recovery}, {@code _partial},
 *       {@code _dsack}, {@code _loss}.
 *   <li>{@code tcp_retransmit_timer}: {@code tcp_enter_loss} (every segment not SACKed lost, cwnd
 *       1, ssthresh once per window, reordering back to the sysctl), the head again,
 *       {@code icsk_rto} doubled up to {@code TCP_RTO_MAX}; a valid RTT sample (every ACK of data,
 *       with timestamps) resets the backoff ({@code tcp_set_rto}: srtt + max(mdev, TCP_RTO_MIN)).
 * </ul>
 * Not modelled: forward retransmission
 * ({@code tcp_can_forward_retransmit}: only when nothing new may be sent; iperf always has data),
 * {@code tcp_head_timedout}, SACK reneging, F-RTO ({@code sysctl_tcp_frto} = 2: an RTO here
 * always enters Loss), HyStart, {@code tcp_time_to_recover}'s small-window rule.
 *
 * <p>Allocation-free after warm-up.
 */
final class SackSender {
  // icsk_ca_state
  static final int OPEN = 0;
  static final int DISORDER = 1;
  static final int RECOVERY = 3;
  static final int LOSS = 4;

  // tcp_ack flags (net/ipv4/tcp_input.c)
  static final int FLAG_WIN_UPDATE = 0x02;
  static final int FLAG_DATA_ACKED = 0x04;
  static final int FLAG_DATA_SACKED = SackScoreboard.FLAG_DATA_SACKED;
  static final int FLAG_DATA_LOST = SackScoreboard.FLAG_DATA_LOST;
  static final int FLAG_SND_UNA_ADVANCED = 0x400;
  static final int FLAG_DSACKING_ACK = SackScoreboard.FLAG_DSACKING_ACK;
  static final int FLAG_NOT_DUP = FLAG_WIN_UPDATE | FLAG_DATA_ACKED;
  static final int FLAG_CA_ALERT = FLAG_DATA_SACKED;
  static final int FLAG_ANY_PROGRESS = FLAG_DATA_ACKED | FLAG_DATA_SACKED | FLAG_SND_UNA_ADVANCED;

  static final int SYSCTL_REORDERING = SackScoreboard.SYSCTL_REORDERING;
  /** {@code TCP_RTO_MIN} (HZ / 5), {@code TCP_RTO_MAX} (120 HZ), {@code TCP_TIMEOUT_INIT} (3 HZ). */
  static final long RTO_MIN_NS = 200_000_000L;
  static final long RTO_MAX_NS = 120_000_000_000L;
  static final long TIMEOUT_INIT_NS = 3_000_000_000L;
  /** tcp_write_timer: a timer finding the socket owned by the user tries again in HZ / 20. */
  static final long OWNED_RETRY_NS = 50_000_000L;

  final int mss;
  private final long tickNs;
  /** The TSecr of the ACK being processed, as a guest jiffy; -1 for none. */
  private long rcvTsecr = -1;
  /** snd_cwnd, snd_cwnd_cnt, snd_ssthresh and CUBIC. */
  final CongestionWindow cc;
  /** The retransmission queue, its counters, reordering and undo counters. */
  final SackScoreboard q;
  int state = OPEN;
  long highSeq;
  private int priorSsthresh;

  // retransmission timer
  long rtoNs = TIMEOUT_INIT_NS;
  int backoff;
  int retransmits;
  /** When the retransmission timer fires (ns), {@link Long#MAX_VALUE} when it is not armed. */
  long timerNs = Long.MAX_VALUE;

  // statistics
  long recoveries;
  long timeouts;
  long undos;

  SackSender(int mss, int initCwnd, long rwndBytes, long tickNs) {
    this.mss = mss;
    this.q = new SackScoreboard(mss);
    this.tickNs = tickNs;
    this.cc = new CongestionWindow(initCwnd, (int) Math.max(2, Math.min(Integer.MAX_VALUE, rwndBytes / mss + 1)), tickNs);
  }

  int cwnd() {
    return cc.cwnd;
  }

  int ssthresh() {
    return cc.ssthresh;
  }

  int inFlight() {
    return q.inFlight();
  }

  /** {@code tcp_event_new_data_sent}: new data leave; the first packet out arms the timer. */
  void sendNew(int bytes, long now) {
    if (q.tail == q.head) {
      timerNs = now + rtoNs;
    }
    q.sendNew(bytes);
  }

  /**
   * One step of {@code tcp_xmit_retransmit_queue}: the next lost segment to retransmit within cwnd,
   * else -1. The caller sends it and calls {@link #retransmitted}.
   */
  long nextRetransmit() {
    return q.nextRetransmit(cc.cwnd);
  }

  /** {@code tcp_retransmit_skb} succeeded for segment {@code k}; the head's restarts the timer. */
  void retransmitted(long k, long now) {
    if (k == q.head) {
      timerNs = now + rtoNs;
    }
    q.retransmitted(k, jiffies(now));
  }

  /**
   * {@code tcp_ack} of an ACK carrying cumulative {@code ack} and {@code n} SACK blocks; returns
   * whether {@code tcp_xmit_retransmit_queue} runs after it (Recovery or Loss).
   */
  boolean onAck(long ack, long[] blocks, int n, long now) {
    return onAck(ack, blocks, n, -1, now);
  }

  /** The same with the ACK's TSecr ({@code tsecrNs}, the guest's clock when the echoed data left; -1: none). */
  boolean onAck(long ack, long[] blocks, int n, long tsecrNs, long now) {
    rcvTsecr = tsecrNs < 0 ? -1 : jiffies(tsecrNs);
    long priorSndUna = q.sndUna;
    if (ack < q.sndUna) { // old_ack
      if (n > 0) {
        q.sacktag(ack, blocks, n, priorSndUna, highSeq, state == RECOVERY, state == LOSS);
        if (state == OPEN) {
          tryKeepOpen();
        }
      }
      return false;
    }
    if (ack > q.sndNxt) {
      return false; // invalid_ack
    }
    int flag = 0;
    int priorFackets = q.facketsOut;
    int priorInFlight = q.inFlight();
    if (ack > q.sndUna) {
      flag |= FLAG_SND_UNA_ADVANCED | FLAG_WIN_UPDATE;
      q.sndUna = ack;
    }
    if (n > 0) {
      flag |= q.sacktag(ack, blocks, n, priorSndUna, highSeq, state == RECOVERY, state == LOSS);
    }
    if (q.tail == q.head) {
      return false; // no_queue
    }
    int acked = q.cleanRtxQueue(priorFackets);
    if (acked > 0) {
      flag |= FLAG_DATA_ACKED;
      if (state == OPEN) {
        cc.acked(acked); // bictcp_acked
      }
      timerNs = q.head < q.tail ? now + rtoNs : Long.MAX_VALUE; // tcp_rearm_rto
    }
    boolean dubious = (flag & FLAG_NOT_DUP) == 0 || (flag & FLAG_CA_ALERT) != 0 || state != OPEN;
    if ((flag & FLAG_DATA_ACKED) != 0 && state != RECOVERY) { // tcp_may_raise_cwnd
      cc.congAvoid(priorInFlight, mss, q.reordering, now);
    }
    return dubious && fastretransAlert(acked, flag);
  }

  /** {@code tcp_fastretrans_alert}; returns whether the retransmit queue is to be walked. */
  private boolean fastretransAlert(int acked, int flag) {
    boolean isDupack = (flag & (FLAG_SND_UNA_ADVANCED | FLAG_NOT_DUP)) == 0;
    boolean doLost = isDupack || ((flag & FLAG_DATA_SACKED) != 0 && q.facketsOut > q.reordering);
    if (q.fack && (flag & FLAG_DATA_LOST) != 0 && q.sndUna < highSeq && state != OPEN && q.facketsOut > q.reordering) {
      q.markHeadLost(q.facketsOut - q.reordering, false, highSeq);
    }
    if (state == OPEN) {
      q.retransStamp = 0;
    } else if (q.sndUna >= highSeq) {
      switch (state) {
        case LOSS -> {
          retransmits = 0;
          tryUndoRecovery();
        }
        case DISORDER -> {
          tryUndoDsack();
          q.undo = false; // SACK: snd_una passed high_seq
          state = OPEN;
        }
        case RECOVERY -> {
          tryUndoRecovery();
          completeCwr();
        }
        default -> { }
      }
    }
    boolean fastRexmit = false;
    switch (state) {
      case RECOVERY -> {
        if ((flag & FLAG_SND_UNA_ADVANCED) != 0) {
          doLost = tryUndoPartial(acked);
        }
      }
      case LOSS -> {
        if ((flag & FLAG_DATA_ACKED) != 0) {
          retransmits = 0;
        }
        if (!tryUndoLoss()) {
          moderateCwnd();
          return true;
        }
        if (state != OPEN) {
          return false;
        }
        return openOrRecover(flag);
      }
      default -> {
        if (!openOrRecover(flag)) {
          return false;
        }
        fastRexmit = true;
      }
    }
    if (doLost) {
      updateScoreboard(fastRexmit);
    }
    cwndDown(flag);
    return true;
  }

  /**
   * {@code tcp_fastretrans_alert} in Open or Disorder: stays out of Recovery ({@code tcp_try_to_open},
   * returns false) or enters it.
   */
  private boolean openOrRecover(int flag) {
    if (state == DISORDER) {
      tryUndoDsack();
    }
    if (!timeToRecover()) {
      if (!q.anyRetransDone()) {
        q.retransStamp = 0;
      }
      tryKeepOpen(); // tcp_try_to_open
      moderateCwnd();
      return false;
    }
    highSeq = q.sndNxt; // "Otherwise enter Recovery state"
    priorSsthresh = currentSsthresh();
    q.undo = true;
    q.undoMarker = q.sndUna;
    q.undoRetrans = q.retransOut;
    cc.ssthresh = cc.recalcSsthresh();
    cc.cwndCnt = 0;
    state = RECOVERY;
    recoveries++;
    return true;
  }

  /** {@code tcp_time_to_recover}: a segment is lost, or the duplicate ACK heuristics pass q.reordering. */
  boolean timeToRecover() {
    return q.lostOut > 0 || (q.fack ? q.facketsOut : q.sackedOut + 1) > q.reordering;
  }

  /** {@code tcp_update_scoreboard}: FACK marks by fackets_out, SACK by sacked_out. */
  private void updateScoreboard(boolean fastRexmit) {
    if (q.fack) {
      int lost = q.facketsOut - q.reordering;
      q.markHeadLost(lost <= 0 ? 1 : lost, false, highSeq);
      return;
    }
    int sackedUpto = q.sackedOut - q.reordering;
    if (sackedUpto >= 0) {
      q.markHeadLost(sackedUpto, false, highSeq);
    } else if (fastRexmit) {
      q.markHeadLost(1, true, highSeq);
    }
  }

  /** {@code tcp_cwnd_down}: one segment off per two ACKs of progress above ssthresh; at most in flight + 1. */
  private void cwndDown(int flag) {
    if ((flag & (FLAG_ANY_PROGRESS | FLAG_DSACKING_ACK)) == 0) {
      return;
    }
    int decr = cc.cwndCnt + 1;
    cc.cwndCnt = decr & 1;
    decr >>= 1;
    if (decr > 0 && cc.cwnd > cc.ssthresh) { // tcp_cwnd_min: CUBIC has no min_cwnd, so ssthresh
      cc.cwnd -= decr;
    }
    cc.cwnd = Math.min(cc.cwnd, q.inFlight() + 1);
  }

  /** {@code tcp_complete_cwr}. */
  private void completeCwr() {
    if (q.undo && cc.cwnd > cc.ssthresh) {
      cc.cwnd = cc.ssthresh;
    }
  }

  /** {@code tcp_moderate_cwnd}: cwnd at most in flight + {@code tcp_max_burst} (= q.reordering). */
  private void moderateCwnd() {
    cc.cwnd = Math.min(cc.cwnd, q.inFlight() + q.reordering);
  }

  /** {@code tcp_current_ssthresh} outside Recovery/CWR: max(ssthresh, 3/4 cwnd). */
  private int currentSsthresh() {
    return Math.max(cc.ssthresh, (cc.cwnd >> 1) + (cc.cwnd >> 2));
  }

  /** {@code tcp_try_keep_open}. */
  private void tryKeepOpen() {
    int st = q.sackedOut + q.lostOut > 0 || q.anyRetransDone() || q.undo ? DISORDER : OPEN;
    if (state != st) {
      state = st;
      highSeq = q.sndNxt;
    }
  }

  // Undo (tcp_input.c): with no retransmission left un-D-SACKed (undo_retrans 0) or none made
  // (retrans_stamp 0), or the ACK echoes a timestamp older than the first retransmission
  // (tcp_packet_delayed), the reduction was spurious.

  /** {@code tcp_may_undo}. */
  private boolean mayUndo() {
    return q.undo && (q.undoRetrans == 0 || packetDelayed());
  }

  /**
   * {@code tcp_packet_delayed}: nothing retransmitted, or the ACK echoes a timestamp older than the
   * first retransmission (the original arrived, not the retransmission).
   */
  private boolean packetDelayed() {
    return q.retransStamp == 0 || (rcvTsecr > 0 && rcvTsecr < q.retransStamp);
  }

  /** {@code tcp_time_stamp} of {@code ns} (0 never: it marks "none"). */
  private long jiffies(long ns) {
    return ns / tickNs + 1;
  }

  /** {@code tcp_undo_cwr}: cwnd back to CUBIC's undo_cwnd, ssthresh to its prior value. */
  private void undoCwr(boolean undoSsthresh) {
    if (priorSsthresh > 0) {
      cc.cwnd = cc.undoCwnd();
      if (undoSsthresh && priorSsthresh > cc.ssthresh) {
        cc.ssthresh = priorSsthresh;
      }
    } else {
      cc.cwnd = Math.max(cc.cwnd, cc.ssthresh);
    }
    undos++;
  }

  /** {@code tcp_try_undo_recovery} (SACK: always goes Open). */
  private void tryUndoRecovery() {
    if (mayUndo()) {
      undoCwr(true);
      q.undo = false;
    }
    state = OPEN;
  }

  /** {@code tcp_try_undo_dsack}. */
  private void tryUndoDsack() {
    if (q.undo && q.undoRetrans == 0) {
      undoCwr(true);
      q.undo = false;
    }
  }

  /** {@code tcp_try_undo_partial}: returns whether more is to be marked lost ("failed"). */
  private boolean tryUndoPartial(int acked) {
    boolean failed = q.facketsOut > q.reordering;
    if (mayUndo()) {
      if (!q.anyRetransDone()) {
        q.retransStamp = 0;
      }
      q.updateReordering(q.facketsOut + acked);
      undoCwr(false);
      q.undo = false;
      failed = false;
    }
    return failed;
  }

  /** {@code tcp_try_undo_loss}. */
  private boolean tryUndoLoss() {
    if (!mayUndo()) {
      return false;
    }
    q.clearLost();
    undoCwr(true);
    retransmits = 0;
    q.undo = false;
    state = OPEN;
    return true;
  }

  /** The RTO after a valid RTT sample ({@code tcp_set_rto}: srtt + max(mdev, TCP_RTO_MIN)); resets the backoff. */
  void rttSample(long srttNs, long rttvarNs) {
    rtoNs = Math.min(RTO_MAX_NS, srttNs + Math.max(4 * rttvarNs, RTO_MIN_NS));
    backoff = 0;
  }

  /**
   * {@code tcp_retransmit_timer} at {@code now}: returns whether the head is to be retransmitted
   * (the caller walks the retransmit queue).
   */
  boolean onTimeout(long now) {
    if (q.tail == q.head) {
      timerNs = Long.MAX_VALUE;
      return false;
    }
    timeouts++;
    enterLoss();
    backoff++;
    retransmits++;
    rtoNs = Math.min(rtoNs << 1, RTO_MAX_NS);
    timerNs = now + rtoNs;
    return true;
  }

  /** {@code tcp_enter_loss(sk, 0)}. */
  private void enterLoss() {
    if (state <= DISORDER || q.sndUna == highSeq || (state == LOSS && retransmits == 0)) {
      priorSsthresh = currentSsthresh();
      cc.ssthresh = cc.recalcSsthresh();
    }
    cc.cwnd = 1;
    cc.cwndCnt = 0;
    q.undoRetrans = 0; // tcp_clear_retrans_partial
    q.undoMarker = q.sndUna; // "Push undo marker, if it was plain RTO and nothing was retransmitted"
    q.undo = !q.markAllLost();
    q.reordering = Math.min(q.reordering, SYSCTL_REORDERING);
    state = LOSS;
    highSeq = q.sndNxt;
    cc.reset(); // bictcp_state(TCP_CA_Loss)
  }

  /** Test view of segment {@code k}'s tag bits. */
  int tagForTest(long k) {
    return q.tagOf(k);
  }

  @Override
  public String toString() {
    return "SackSender[una=" + q.sndUna + " nxt=" + q.sndNxt + " cwnd=" + cc.cwnd + " ssthresh=" + cc.ssthresh
        + " state=" + state + " out=" + q.packetsOut() + " sacked=" + q.sackedOut + " lost=" + q.lostOut
        + " retrans=" + q.retransOut + " fackets=" + q.facketsOut + " reordering=" + q.reordering
        + (q.fack ? " fack" : " sack") + "]";
  }
}

package org.lockvisor.workloads.iperf;

/**
 * The retransmission queue of a 3.0.27 TCP sender as a SACK scoreboard: the sent, unacknowledged
 * segments with their {@code TCP_SKB_CB(skb)->sacked} bits, the counters {@code packets_out},
 * {@code sacked_out}, {@code lost_out}, {@code retrans_out}, {@code fackets_out}, the hints
 * ({@code lost_skb_hint}, {@code retransmit_skb_hint}), {@code tp->reordering} with FACK, and the
 * undo counters; with net/ipv4/tcp_input.c's {@code tcp_sacktag_write_queue} (blocks sorted by
 * start, {@code recv_sack_cache}, {@code tcp_check_dsack}, {@code tcp_sacktag_one},
 * {@code tcp_mark_lost_retrans}), {@code tcp_update_reordering}, {@code tcp_clean_rtx_queue},
 * {@code tcp_mark_head_lost} and tcp_output.c's {@code tcp_xmit_retransmit_queue} step.
 *
 * <p>The queue is cut into the segments the wire carries (one MSS each, a sub-MSS tail): a TSO skb
 * of k segments is k entries, which is how {@code tcp_fragment} cuts it when SACK blocks,
 * {@code tcp_mark_head_lost} or {@code tcp_retransmit_skb} split it; so each entry counts one packet.
 * A ring of arrays: allocation-free once it has grown to the largest window.
 *
 * <p>Split out of {@link SackSender}, which runs the congestion state machine over it.
 */
final class SackScoreboard {
  // TCP_SKB_CB(skb)->sacked bits (include/net/tcp.h)
  static final byte SACKED = 1; // TCPCB_SACKED_ACKED
  static final byte RETRANS = 2; // TCPCB_SACKED_RETRANS: retransmitted, still in flight
  static final byte LOST = 4; // TCPCB_LOST
  static final byte EVER_RETRANS = 8; // TCPCB_EVER_RETRANS

  static final int FLAG_DATA_SACKED = 0x20;
  static final int FLAG_DATA_LOST = 0x80;
  static final int FLAG_DSACKING_ACK = 0x800;

  /** {@code sysctl_tcp_reordering} = {@code TCP_FASTRETRANS_THRESH}. */
  static final int SYSCTL_REORDERING = 3;
  /** {@code TCP_MAX_REORDERING} (include/net/tcp.h). */
  static final int MAX_REORDERING = 127;

  final int mss;
  private long[] end = new long[64];
  private byte[] tag = new byte[64];
  private long[] rexmitNxt = new long[64];
  private int mask = 63;
  /** Segment numbers: segment k lives at k &amp; mask; [head, tail) are sent and unacknowledged. */
  long head;
  long tail;
  long sndUna;
  long sndNxt;

  int sackedOut;
  int lostOut;
  int retransOut;
  int facketsOut;
  /** {@code tp->reordering}; FACK until reordering is seen ({@code tcp_disable_fack}). */
  int reordering = SYSCTL_REORDERING;
  boolean fack = true;
  boolean undo; // undo_marker != 0
  long undoMarker;
  int undoRetrans;
  /** {@code retrans_stamp}: the jiffy of the episode's first retransmission, 0 for none. */
  long retransStamp;
  private long retransmitHigh;
  private long lostRetransLow;
  private long lostHint = -1;
  private int lostCntHint;
  private long retransHint = -1;
  private final long[] sackCache = new long[6];
  private int sackCacheN;
  private int reord; // state.reord of the ACK being processed
  private final int[] order = new int[4];

  long retransmitted;
  long reorderEvents;

  SackScoreboard(int mss) {
    this.mss = mss;
  }

  /** {@code tcp_event_new_data_sent}: {@code bytes} of new data leave at {@code sndNxt}, cut into segments. */
  void sendNew(int bytes) {
    while (bytes > 0) {
      int len = Math.min(mss, bytes);
      if (tail - head == end.length) {
        grow();
      }
      int i = (int) (tail & mask);
      sndNxt += len;
      end[i] = sndNxt;
      tag[i] = 0;
      tail++;
      bytes -= len;
    }
  }

  /**
   * One step of {@code tcp_xmit_retransmit_queue}: the next lost segment not yet retransmitted, if
   * packets in flight are below {@code cwnd}, else -1 (forward retransmission, which 3.0 does only
   * when nothing new may be sent, is not modelled: iperf always has data).
   */
  long nextRetransmit(int cwnd) {
    if (tail == head) {
      return -1;
    }
    if (lostOut == 0) {
      retransmitHigh = sndUna;
    }
    long k = Math.max(retransHint, head);
    for (; k < tail; k++) {
      if (inFlight() >= cwnd || startOf(k) >= retransmitHigh) {
        break;
      }
      int t = tag[(int) (k & mask)];
      if ((t & LOST) != 0 && (t & (SACKED | RETRANS)) == 0) {
        retransHint = k;
        return k;
      }
    }
    retransHint = k;
    return -1;
  }

  /** {@code tcp_retransmit_skb} succeeded for segment {@code k} at {@code jiffies}. */
  void retransmitted(long k, long jiffies) {
    if (retransOut == 0) {
      lostRetransLow = sndNxt;
    }
    int i = (int) (k & mask);
    tag[i] |= RETRANS | EVER_RETRANS;
    rexmitNxt[i] = sndNxt;
    retransOut++;
    if (retransStamp == 0) {
      retransStamp = jiffies; // "Save stamp of the first retransmit."
    }
    undoRetrans++;
    retransmitted++;
  }

  /**
   * {@code tcp_enter_loss}'s walk: RETRANS and LOST cleared, every segment not SACKed lost; returns
   * whether a segment was ever retransmitted (then there is no undo marker).
   */
  boolean markAllLost() {
    boolean everRetrans = false;
    retransOut = 0;
    lostOut = 0;
    lostHint = -1;
    retransHint = -1;
    for (long k = head; k < tail; k++) {
      int i = (int) (k & mask);
      everRetrans |= (tag[i] & EVER_RETRANS) != 0;
      tag[i] &= ~(RETRANS | LOST);
      if ((tag[i] & SACKED) == 0) {
        tag[i] |= LOST;
        lostOut++;
        retransmitHigh = end[i];
      }
    }
    return everRetrans;
  }

  /** {@code tcp_try_undo_loss}'s walk: nothing is lost any more. */
  void clearLost() {
    for (long k = head; k < tail; k++) {
      tag[(int) (k & mask)] &= ~LOST;
    }
    lostHint = -1;
    retransHint = -1;
    lostOut = 0;
  }

  long startOf(long k) {
    return k == head ? sndUna : end[(int) ((k - 1) & mask)];
  }

  long endOf(long k) {
    return end[(int) (k & mask)];
  }

  int tagOf(long k) {
    return tag[(int) (k & mask)];
  }

  private void grow() {
    int n = end.length;
    long[] e = new long[2 * n];
    byte[] t = new byte[2 * n];
    long[] r = new long[2 * n];
    for (long k = head; k < tail; k++) {
      e[(int) (k & (2 * n - 1))] = end[(int) (k & mask)];
      t[(int) (k & (2 * n - 1))] = tag[(int) (k & mask)];
      r[(int) (k & (2 * n - 1))] = rexmitNxt[(int) (k & mask)];
    }
    end = e;
    tag = t;
    rexmitNxt = r;
    mask = 2 * n - 1;
  }

  /** {@code tcp_sacktag_write_queue} with {@code tcp_check_dsack}: returns the flags. */
  int sacktag(long ack, long[] blocks, int n, long priorSndUna, long highSeq, boolean recovery, boolean loss) {
    int flag = 0;
    reord = packetsOut();
    boolean dupSack = blocks[0] < ack || (n > 1 && blocks[1] <= blocks[3] && blocks[0] >= blocks[2]);
    if (dupSack) {
      flag |= FLAG_DSACKING_ACK;
      if (undo && undoRetrans > 0 && blocks[1] <= priorSndUna && blocks[1] > undoMarker) {
        undoRetrans--; // "D-SACK for already forgotten data... Do dumb counting."
      }
    }
    // "order SACK blocks to allow in order walk of the retrans queue" (by start_seq)
    int m = Math.min(n, 4);
    for (int b = 0; b < m; b++) {
      order[b] = b;
    }
    for (int i = 0; i < m - 1; i++) {
      for (int j = 0; j < m - 1 - i; j++) {
        if (blocks[2 * order[j]] > blocks[2 * order[j + 1]]) {
          int x = order[j];
          order[j] = order[j + 1];
          order[j + 1] = x;
        }
      }
    }
    for (int ob = 0; ob < m; ob++) {
      int b = order[ob];
      long s = blocks[2 * b];
      long e = blocks[2 * b + 1];
      boolean dup = dupSack && b == 0;
      if (e > sndNxt || s >= e || e <= sndUna) {
        continue; // tcp_is_sackblock_valid (a D-SACK below snd_una was counted above)
      }
      if (e > highSeq) {
        flag |= FLAG_DATA_LOST; // "Event B": SACKed data above high_seq
      }
      if (!dup) {
        for (int c = 0; c < sackCacheN; c++) { // recv_sack_cache: skip what was walked already
          if (sackCache[2 * c] <= s && sackCache[2 * c + 1] > s) {
            s = sackCache[2 * c + 1];
          }
        }
      }
      s = Math.max(s, sndUna);
      for (long k = firstEndingAfter(s); k < tail && endOf(k) <= e; k++) {
        if (startOf(k) >= s) {
          flag |= sacktagOne(k, dup);
        }
      }
    }
    sackCacheN = Math.min(n, 3);
    System.arraycopy(blocks, 0, sackCache, 0, 2 * sackCacheN);
    if (fack) {
      markLostRetrans(recovery);
    }
    if (reord < facketsOut && (!loss || undo)) {
      updateReordering(facketsOut - reord);
    }
    return flag;
  }

  /** The first segment whose end is beyond {@code seq} (binary search over the queue). */
  private long firstEndingAfter(long seq) {
    long lo = head;
    long hi = tail;
    while (lo < hi) {
      long mid = (lo + hi) >>> 1;
      if (endOf(mid) <= seq) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  /** {@code tcp_highest_sack_seq}: the end of the highest SACKed segment, snd_una when none. */
  private long highestSackSeq() {
    return sackedOut == 0 || facketsOut == 0 ? sndUna : endOf(head + facketsOut - 1);
  }

  /** {@code tcp_sacktag_one}. */
  private int sacktagOne(long k, boolean dup) {
    int i = (int) (k & mask);
    int t = tag[i];
    int fackCount = (int) (k - head);
    int flag = 0;
    if (dup && (t & (RETRANS | EVER_RETRANS)) != 0) {
      if (undo && undoRetrans > 0 && endOf(k) > undoMarker) {
        undoRetrans--;
      }
      if ((t & SACKED) != 0) {
        reord = Math.min(fackCount, reord);
      }
    }
    if ((t & SACKED) == 0) {
      if ((t & RETRANS) != 0) {
        if ((t & LOST) != 0) {
          t &= ~(LOST | RETRANS); // the retransmission arrived
          lostOut--;
          retransOut--;
        }
      } else {
        if ((t & EVER_RETRANS) == 0 && startOf(k) < highestSackSeq()) {
          reord = Math.min(fackCount, reord); // "New sack for not retransmitted frame, which was in hole"
        }
        if ((t & LOST) != 0) {
          t &= ~LOST;
          lostOut--;
        }
      }
      t |= SACKED;
      flag = FLAG_DATA_SACKED;
      sackedOut++;
      if (!fack && lostHint >= head && k < lostHint) {
        lostCntHint++;
      }
      if (fackCount + 1 > facketsOut) {
        facketsOut = fackCount + 1;
      }
    }
    if (dup && (t & RETRANS) != 0) {
      t &= ~RETRANS;
      retransOut--;
    }
    tag[i] = (byte) t;
    return flag;
  }

  /** {@code tcp_update_reordering}: a larger reordering degree seen disables FACK. */
  void updateReordering(int metric) {
    if (metric > reordering) {
      reordering = Math.min(MAX_REORDERING, metric);
      reorderEvents++;
      if (fack) {
        fack = false; // tcp_disable_fack
        lostHint = -1;
      }
    }
  }

  /** {@code tcp_mark_lost_retrans} (FACK only): retransmissions sent before data now SACKed are lost again. */
  private void markLostRetrans(boolean recovery) {
    if (retransOut == 0 || !recovery) {
      return;
    }
    long receivedUpto = highestSackSeq();
    if (receivedUpto <= lostRetransLow) {
      return;
    }
    long newLow = sndNxt;
    int cnt = 0;
    for (long k = head; k < tail && cnt < retransOut; k++) {
      int i = (int) (k & mask);
      if ((tag[i] & RETRANS) == 0) {
        continue;
      }
      if (receivedUpto > rexmitNxt[i]) {
        tag[i] &= ~RETRANS;
        retransOut--;
        verifyRetransmitHint(k);
        if ((tag[i] & LOST) == 0) {
          tag[i] |= LOST;
          lostOut++;
        }
      } else {
        newLow = Math.min(newLow, rexmitNxt[i]);
        cnt++;
      }
    }
    if (retransOut > 0) {
      lostRetransLow = newLow;
    }
  }

  /** {@code tcp_verify_retransmit_hint}. */
  private void verifyRetransmitHint(long k) {
    if (retransHint < head || k < retransHint) {
      retransHint = k;
    }
    if (lostOut == 0 || endOf(k) > retransmitHigh) {
      retransmitHigh = endOf(k);
    }
  }

  /** {@code tcp_clean_rtx_queue}: frees the acknowledged head; returns the packets acked. */
  int cleanRtxQueue(int priorFackets) {
    int acked = 0;
    int holeReord = packetsOut();
    int priorSacked = sackedOut;
    while (head < tail && endOf(head) <= sndUna) {
      int t = tag[(int) (head & mask)];
      if ((t & (RETRANS | EVER_RETRANS)) != 0) {
        if ((t & RETRANS) != 0) {
          retransOut--;
        }
      } else if ((t & SACKED) == 0) {
        holeReord = Math.min(acked, holeReord);
      }
      if ((t & SACKED) != 0) {
        sackedOut--;
      }
      if ((t & LOST) != 0) {
        lostOut--;
      }
      head++;
      acked++;
    }
    if (acked > 0) {
      if (holeReord < priorFackets) {
        updateReordering(facketsOut - holeReord); // "Non-retransmitted hole got filled? That's reordering"
      }
      int delta = fack ? acked : priorSacked - sackedOut;
      lostCntHint -= Math.min(lostCntHint, delta);
      facketsOut -= Math.min(acked, facketsOut);
    }
    return acked;
  }

  /**
   * {@code tcp_mark_head_lost}: from the head up to high_seq, the segments not SACKed before the
   * count passes {@code packets} (FACK counts every segment, SACK only the SACKed ones).
   */
  void markHeadLost(int packets, boolean markHead, long highSeq) {
    long k;
    int cnt;
    if (lostHint >= head) {
      k = lostHint;
      cnt = lostCntHint;
      if (markHead && k != head) {
        return;
      }
    } else {
      k = head;
      cnt = 0;
    }
    for (; k < tail; k++) {
      lostHint = k;
      lostCntHint = cnt;
      if (endOf(k) > highSeq) {
        break;
      }
      int i = (int) (k & mask);
      int old = cnt;
      if (fack || (tag[i] & SACKED) != 0) {
        cnt++;
      }
      if (cnt > packets && (!fack || (tag[i] & SACKED) != 0 || old >= packets)) {
        break; // (a multi-segment skb would be fragmented here; these are one segment each)
      }
      if ((tag[i] & (LOST | SACKED)) == 0) { // tcp_skb_mark_lost
        verifyRetransmitHint(k);
        tag[i] |= LOST;
        lostOut++;
      }
      if (markHead) {
        break;
      }
    }
  }

  /** {@code tcp_any_retrans_done}. */
  boolean anyRetransDone() {
    return retransOut > 0 || (head < tail && (tagOf(head) & EVER_RETRANS) != 0);
  }

  int packetsOut() {
    return (int) (tail - head);
  }

  /** {@code tcp_packets_in_flight}: packets_out - (sacked_out + lost_out) + retrans_out. */
  int inFlight() {
    return packetsOut() - (sackedOut + lostOut) + retransOut;
  }
}

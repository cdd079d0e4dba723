package org.lockvisor.devices.vhostnet;

import java.util.Arrays;

/**
 * The peer's TCP receive sequence state per flow, for a guest sender that numbers its bytes (iperf
 * {@code recovery: 3.0}): {@code rcv_nxt}, the out-of-order queue as its contiguous ranges, and the
 * SACK blocks the receiver reports, after Linux 3.0.27 net/ipv4/tcp_input.c:
 * <ul>
 *   <li>{@code tcp_data_queue}: data at {@code rcv_nxt} advances it and, when the out-of-order
 *       queue holds data, {@code tcp_ofo_queue} moves what became contiguous and
 *       {@code tcp_sack_remove} drops the blocks {@code rcv_nxt} now covers (all of them when the
 *       queue is empty); data beyond {@code rcv_nxt} goes to the out-of-order queue and
 *       {@code tcp_sack_new_ofo_skb} records it: a block it extends ({@code tcp_sack_extend}) is
 *       rotated to the front and coalesced with the others ({@code tcp_sack_maybe_coalesce}), else a
 *       new block is put in front, the oldest forgotten beyond {@code TCP_NUM_SACKS} = 4
 *       (include/linux/tcp.h); data wholly below {@code rcv_nxt} is a duplicate.
 *   <li>{@code __tcp_ack_snd_check} / {@code tcp_data_queue}: the ACK goes out at once while the
 *       out-of-order queue holds data, when a gap is filled ("RFC2581. 4.2. SHOULD send immediate
 *       ACK, when gap in queue is filled") and for a duplicate ("A retransmit, 2nd most common
 *       case. Force an immediate ack.").
 *   <li>{@code tcp_established_options} (tcp_output.c): the blocks that fit the 40 option bytes
 *       beside the timestamp option ({@code sysctl_tcp_timestamps} = 1): 3 of the 4.
 * <li>D-SACK ({@code sysctl_tcp_dsack} = 1, {@code tcp_dsack_set}): a duplicate — below
 *       {@code rcv_nxt} or inside data already queued — is reported in the next ACK as its first
 *       block ({@code tcp_established_options}: {@code duplicate_sack} before
 *       {@code selective_acks}, 3 blocks in all); a duplicate contiguous with the one pending
 *       extends it (GRO would have merged the two frames into one skb).
 *   <li>Timestamps: {@code tcp_replace_ts_recent} keeps the TSval of data at or below
 *       {@code rcv_wup} (rcv_nxt when the last ACK left) as {@code ts_recent} unless it goes back
 *       ({@code tcp_paws_check}, window 0); each ACK echoes it as TSecr.
 * </ul>
 * Not modelled: the receive window (the model's sender is limited by its own {@code rwnd}); with
 * vhost-net's {@code tcp-timestamps: false} 4 blocks would fit, the model still sends 3.
 *
 * <p>Allocation-free after warm-up: per-flow arrays grow with the flow count and the number of
 * holes a flow has had at once.
 */
final class SackReceiver {
  /** {@code TCP_NUM_SACKS} (3.0 include/linux/tcp.h). */
  static final int TCP_NUM_SACKS = 4;
  /** SACK blocks beside the timestamp option in 40 bytes of TCP options (tcp_established_options). */
  static final int MAX_SENT_BLOCKS = 3;

  private boolean[] active = new boolean[16];
  private long[] rcvNxt = new long[16];
  /** Out-of-order ranges {@code {start, end}}, sorted, disjoint and not adjacent. */
  private long[][] ofo = new long[16][];
  private int[] ofoCount = new int[16];
  /** {@code selective_acks}: {@code TCP_NUM_SACKS} blocks per flow, most recent first. */
  private long[] sel = new long[16 * 2 * TCP_NUM_SACKS];
  private int[] numSacks = new int[16];
  /** A D-SACK to report in the next ACK ({@code rx_opt.dsack}), {@code {start, end}} per flow. */
  private long[] dsack = new long[32];
  private boolean[] dsackPending = new boolean[16];
  /** {@code ts_recent} (the TSval to echo) and {@code rcv_wup} (rcv_nxt when the last ACK left). */
  private long[] tsRecent = new long[16];
  private long[] rcvWup = new long[16];

  /**
   * A frame of {@code flow} carrying {@code [seq, seq + len)} reaches the peer's TCP; returns
   * whether the ACK must go out at once (out-of-order data queued, a gap filled, a duplicate).
   */
  boolean receive(int flow, long seq, int len) {
    return receive(flow, seq, len, -1);
  }

  /**
   * The same with the frame's TSval: {@code tcp_replace_ts_recent} stores it as {@code ts_recent}
   * when the frame starts at or below {@code rcv_wup} and the timestamp does not go back
   * ({@code tcp_paws_check} with window 0).
   */
  boolean receive(int flow, long seq, int len, long tsval) {
    ensure(flow);
    active[flow] = true;
    if (tsval >= 0 && seq <= rcvWup[flow] && tsval >= tsRecent[flow]) {
      tsRecent[flow] = tsval;
    }
    long end = seq + len;
    long nxt = rcvNxt[flow];
    if (end <= nxt) {
      dsackSet(flow, seq, end); // "A retransmit, 2nd most common case"
      return true;
    }
    if (seq <= nxt) {
      rcvNxt[flow] = end;
      if (ofoCount[flow] == 0) {
        return false;
      }
      ofoQueue(flow);
      sackRemove(flow);
      return true; // the queue held data: a gap (partly) filled, or still out of order
    }
    if (inOfo(flow, seq, end)) {
      dsackSet(flow, seq, end); // "All the bits are present. Drop."
      return true;
    }
    ofoInsert(flow, seq, end);
    sackNewOfo(flow, seq, end);
    return true;
  }

  private boolean inOfo(int flow, long seq, long end) {
    long[] q = ofo[flow];
    for (int k = 0; k < ofoCount[flow]; k++) {
      if (q[2 * k] <= seq && end <= q[2 * k + 1]) {
        return true;
      }
    }
    return false;
  }

  /** {@code tcp_dsack_set} (a duplicate contiguous with the pending one extends it, {@code tcp_dsack_extend}). */
  private void dsackSet(int flow, long seq, long end) {
    if (dsackPending[flow] && seq <= dsack[2 * flow + 1] && dsack[2 * flow] <= end) {
      dsack[2 * flow] = Math.min(dsack[2 * flow], seq);
      dsack[2 * flow + 1] = Math.max(dsack[2 * flow + 1], end);
      return;
    }
    dsackPending[flow] = true;
    dsack[2 * flow] = seq;
    dsack[2 * flow + 1] = end;
  }

  /** Whether {@code flow} numbers its bytes (a frame with a sequence number arrived). */
  boolean active(int flow) {
    return flow < active.length && active[flow];
  }

  long rcvNxt(int flow) {
    return flow < rcvNxt.length ? rcvNxt[flow] : 0;
  }

  /** Writes the ACK of {@code flow}: {@code rcv_nxt} and the first {@link #MAX_SENT_BLOCKS} SACK blocks. */
  void fill(int flow, Packet ack) {
    ack.ackSeq = rcvNxt[flow];
    ack.tsecr = tsRecent[flow];
    rcvWup[flow] = rcvNxt[flow]; // tcp_select_window: the window is advertised up to here
    int d = 0;
    if (dsackPending[flow]) {
      dsackPending[flow] = false; // reported once
      ack.sack[0] = dsack[2 * flow];
      ack.sack[1] = dsack[2 * flow + 1];
      d = 1;
    }
    int n = Math.min(numSacks[flow], MAX_SENT_BLOCKS - d);
    System.arraycopy(sel, flow * 2 * TCP_NUM_SACKS, ack.sack, 2 * d, 2 * n);
    ack.sacks = n + d;
  }

  /** {@code tcp_ofo_queue}: moves the out-of-order ranges {@code rcv_nxt} reaches. */
  private void ofoQueue(int flow) {
    long[] q = ofo[flow];
    int n = ofoCount[flow];
    int k = 0;
    while (k < n && q[2 * k] <= rcvNxt[flow]) {
      rcvNxt[flow] = Math.max(rcvNxt[flow], q[2 * k + 1]);
      k++;
    }
    if (k > 0) {
      System.arraycopy(q, 2 * k, q, 0, 2 * (n - k));
      ofoCount[flow] = n - k;
    }
  }

  private void ofoInsert(int flow, long seq, long end) {
    long[] q = ofo[flow];
    if (q == null) {
      q = ofo[flow] = new long[8];
    }
    int n = ofoCount[flow];
    int i = 0;
    while (i < n && q[2 * i + 1] < seq) {
      i++; // ranges wholly before (and not adjacent to) the new one
    }
    int j = i;
    long s = seq;
    long e = end;
    while (j < n && q[2 * j] <= e) {
      s = Math.min(s, q[2 * j]);
      e = Math.max(e, q[2 * j + 1]);
      j++; // ranges the new one overlaps or touches
    }
    int newCount = n - (j - i) + 1;
    if (2 * newCount > q.length) {
      q = ofo[flow] = Arrays.copyOf(q, q.length * 2);
    }
    System.arraycopy(q, 2 * j, q, 2 * (i + 1), 2 * (n - j));
    q[2 * i] = s;
    q[2 * i + 1] = e;
    ofoCount[flow] = newCount;
  }

  /** {@code tcp_sack_extend}: merges {@code [seq, end)} into block {@code b} if they overlap or touch. */
  private boolean extend(int b, long seq, long end) {
    if (seq <= sel[b + 1] && sel[b] <= end) {
      sel[b] = Math.min(sel[b], seq);
      sel[b + 1] = Math.max(sel[b + 1], end);
      return true;
    }
    return false;
  }

  /** {@code tcp_sack_new_ofo_skb}. */
  private void sackNewOfo(int flow, long seq, long end) {
    int base = flow * 2 * TCP_NUM_SACKS;
    int cur = numSacks[flow];
    for (int k = 0; k < cur; k++) {
      if (extend(base + 2 * k, seq, end)) {
        for (; k > 0; k--) { // rotate this block to the front
          swap(base + 2 * k, base + 2 * (k - 1));
        }
        if (cur > 1) {
          coalesce(flow);
        }
        return;
      }
    }
    int k = cur;
    if (k >= TCP_NUM_SACKS) {
      k--; // forget the oldest
      numSacks[flow]--;
    }
    for (; k > 0; k--) {
      sel[base + 2 * k] = sel[base + 2 * (k - 1)];
      sel[base + 2 * k + 1] = sel[base + 2 * (k - 1) + 1];
    }
    sel[base] = seq;
    sel[base + 1] = end;
    numSacks[flow]++;
  }

  /** {@code tcp_sack_maybe_coalesce}: the first block eats the others it reaches. */
  private void coalesce(int flow) {
    int base = flow * 2 * TCP_NUM_SACKS;
    for (int k = 1; k < numSacks[flow];) {
      if (extend(base, sel[base + 2 * k], sel[base + 2 * k + 1])) {
        numSacks[flow]--;
        for (int i = k; i < numSacks[flow]; i++) {
          sel[base + 2 * i] = sel[base + 2 * (i + 1)];
          sel[base + 2 * i + 1] = sel[base + 2 * (i + 1) + 1];
        }
        continue;
      }
      k++;
    }
  }

  /** {@code tcp_sack_remove}: blocks {@code rcv_nxt} covers go; all of them once the queue is empty. */
  private void sackRemove(int flow) {
    if (ofoCount[flow] == 0) {
      numSacks[flow] = 0;
      return;
    }
    int base = flow * 2 * TCP_NUM_SACKS;
    for (int k = 0; k < numSacks[flow];) {
      if (rcvNxt[flow] >= sel[base + 2 * k]) {
        numSacks[flow]--;
        for (int i = k; i < numSacks[flow]; i++) {
          sel[base + 2 * i] = sel[base + 2 * (i + 1)];
          sel[base + 2 * i + 1] = sel[base + 2 * (i + 1) + 1];
        }
        continue;
      }
      k++;
    }
  }

  private void swap(int a, int b) {
    long s = sel[a];
    long e = sel[a + 1];
    sel[a] = sel[b];
    sel[a + 1] = sel[b + 1];
    sel[b] = s;
    sel[b + 1] = e;
  }

  private void ensure(int flow) {
    if (flow >= active.length) {
      int n = Math.max(flow + 1, active.length * 2);
      active = Arrays.copyOf(active, n);
      rcvNxt = Arrays.copyOf(rcvNxt, n);
      ofo = Arrays.copyOf(ofo, n);
      ofoCount = Arrays.copyOf(ofoCount, n);
      sel = Arrays.copyOf(sel, n * 2 * TCP_NUM_SACKS);
      numSacks = Arrays.copyOf(numSacks, n);
      dsack = Arrays.copyOf(dsack, 2 * n);
      dsackPending = Arrays.copyOf(dsackPending, n);
      tsRecent = Arrays.copyOf(tsRecent, n);
      rcvWup = Arrays.copyOf(rcvWup, n);
    }
  }
}

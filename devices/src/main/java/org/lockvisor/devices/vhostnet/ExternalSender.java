package org.lockvisor.devices.vhostnet;

import java.util.Arrays;
import org.lockvisor.devices.tcp.Cubic;

/**
 * The guest-receive direction's external iperf 2 client, its TCP congestion state per stream
 * (3.0.27 net/ipv4/tcp_input.c, tcp_timer.c, tcp_cong.c): what a stream may send, how an ACK
 * opens its window, when a loss is recovered by fast retransmit and when by the retransmission
 * timer. Split out of {@link GuestReceive}, which owns the wire and the host NIC and calls in here;
 * nothing here calls back.
 *
 * <ul>
 *   <li><b>Fast retransmit</b> ({@link #timeToRecover}): 3.0.27 {@code tcp_time_to_recover}
 *       enters recovery when {@code tcp_dupack_heuristics(tp) > tp->reordering}; with SACK and
 *       FACK on (the defaults: {@code sysctl_tcp_sack = 1}, {@code sysctl_tcp_fack = 1}) the
 *       heuristic is {@code fackets_out}, the segments from {@code snd_una} through the highest
 *       SACKed one, and {@code tp->reordering} starts at {@code sysctl_tcp_reordering =
 *       TCP_FASTRETRANS_THRESH} = 3 (include/net/tcp.h). A single lost segment is retransmitted
 *       when the third segment above it is SACKed: the classic three duplicate ACKs when each
 *       ACK covers one segment. Recovery cuts {@code ssthresh} and {@code cwnd} once per window
 *       by CUBIC's beta 717/1024 ({@code bictcp_recalc_ssthresh}, net/ipv4/tcp_cubic.c).
 *   <li><b>Retransmission timer</b> ({@link #timeout}): {@code tcp_retransmit_timer} enters
 *       loss ({@code tcp_enter_loss}: {@code ssthresh} cut, {@code cwnd} = 1 segment), resends,
 *       then {@code icsk_backoff++} and {@code icsk_rto = min(icsk_rto << 1, TCP_RTO_MAX)}
 *       ({@link #RTO_MAX_NS}, 120 s) and re-arms the timer with the doubled value. An ACK that
 *       advances {@code snd_una} restarts the timer ({@code tcp_rearm_rto}) and, being a valid
 *       RTT sample, resets the backoff ({@code tcp_valid_rtt_meas} → {@code tcp_set_rto},
 *       {@code icsk_backoff = 0}); a duplicate ACK (SACK only) does neither. The base RTO is
 *       {@code TCP_RTO_MIN} (200 ms): {@code __tcp_set_rto} = srtt + rttvar with {@code rttvar}
 *       at least {@code tcp_rto_min}; the srtt of a LAN path (well under a millisecond here) is
 *       left out [simplification]. F-RTO ({@code sysctl_tcp_frto = 2}) is not modelled.
 *   <li><b>Window growth</b> ({@link #ack}): up to {@code ssthresh} slow start, above it
 *       CUBIC ({@link Cubic}: {@code bictcp_update}, {@code tcp_cong_avoid_ai}); a loss sets
 *       {@code ssthresh} by {@code bictcp_recalc_ssthresh}, a timeout also resets CUBIC's state.
 * </ul>
 *
 * <p>Allocation-free: primitive arrays per stream.
 */
final class ExternalSender {
  /** include/net/tcp.h 3.0.27: {@code #define TCP_INIT_CWND 10} segments. */
  static final int INIT_CWND_SEGMENTS = 10;
  /** CUBIC's decrease, 717/1024 ({@link Cubic#BETA}, net/ipv4/tcp_cubic.c 3.0.27). */
  static final int CUBIC_BETA = Cubic.BETA;
  /** include/net/tcp.h 3.0.27: {@code #define TCP_RTO_MIN ((unsigned)(HZ/5))}, 200 ms. */
  static final long RTO_MIN_NS = 200_000_000L;
  /** include/net/tcp.h 3.0.27: {@code #define TCP_RTO_MAX ((unsigned)(120*HZ))}, 120 s. */
  static final long RTO_MAX_NS = 120_000_000_000L;
  /**
   * include/net/tcp.h 3.0.27: {@code #define TCP_FASTRETRANS_THRESH 3}, the initial {@code
   * tp->reordering} ({@code sysctl_tcp_reordering}, net/ipv4/tcp_input.c).
   */
  static final int REORDERING = 3;

  private final long window;
  private final int mss;
  final long[] inflight;
  /** Bytes known lost, to be resent before new data. */
  final long[] resend;
  /** Congestion window and threshold; bytes sent, bytes resolved (ACKed or reported lost), recovery point. */
  final long[] cwnd;
  private final long[] ssthresh;
  private final long[] sent;
  private final long[] resolved;
  private final long[] recover;
  /** {@code icsk_rto} per stream, and when its retransmission timer expires. */
  final long[] rto;
  final long[] rtoAt;
  /** {@code icsk_backoff}: consecutive timeouts without an ACK advancing {@code snd_una}. */
  final int[] backoff;
  /** {@code snd_cwnd_cnt}: ACKs counted toward the next one-packet increase in congestion avoidance. */
  private final long[] cwndCnt;
  /** CUBIC's per-stream state (net/ipv4/tcp_cubic.c 3.0.27). */
  final Cubic cubic;
  long fastRetransmits;
  long timeouts;

  ExternalSender(int streams, long windowBytes, int mss) {
    this.window = windowBytes;
    this.mss = mss;
    this.inflight = new long[streams];
    this.resend = new long[streams];
    this.cwnd = new long[streams];
    Arrays.fill(cwnd, Math.min(windowBytes, (long) INIT_CWND_SEGMENTS * mss));
    this.ssthresh = new long[streams];
    Arrays.fill(ssthresh, Long.MAX_VALUE);
    this.sent = new long[streams];
    this.resolved = new long[streams];
    this.recover = new long[streams];
    this.rto = new long[streams];
    Arrays.fill(rto, RTO_MIN_NS);
    this.rtoAt = new long[streams];
    this.backoff = new int[streams];
    this.cwndCnt = new long[streams];
    this.cubic = new Cubic(streams, JIFFY_NS);
  }

  /** kernel/Kconfig.hz 3.0.27: {@code default HZ_250}, the sender host's jiffy, ns (CUBIC's clock). */
  static final int HZ = 250;
  private static final long JIFFY_NS = 1_000_000_000L / HZ;

  /** tcp_write_xmit: the bytes stream {@code f} may put in flight now (congestion and receive window). */
  long avail(int f) {
    return Math.min(window, cwnd[f]) - inflight[f];
  }

  /**
   * Stream {@code f} sends {@code bytes} at {@code now}; with nothing in flight before, the
   * retransmission timer starts ({@code tcp_event_new_data_sent}: {@code packets_out} was 0).
   */
  void send(int f, long bytes, long now) {
    if (inflight[f] == 0) {
      rtoAt[f] = now + rto[f];
    }
    inflight[f] += bytes;
    sent[f] += bytes;
  }

  /**
   * The 3.0.27 FACK rule of {@code tcp_time_to_recover}: {@code fackets_out >
   * tp->reordering}, with the hole of {@code holeBytes} at {@code snd_una} and {@code sackedBytes}
   * SACKed above it (segments rounded up, as the sender counts {@code tcp_skb_pcount}).
   */
  static boolean timeToRecover(long holeBytes, long sackedBytes, int mss) {
    long fackets = (holeBytes + mss - 1) / mss + (sackedBytes + mss - 1) / mss;
    return fackets > REORDERING;
  }

  /**
   * An ACK of {@code b} bytes of stream {@code f} reaches the sender at {@code now}. One that
   * advances {@code snd_una} grows the window, restarts the retransmission timer at the current
   * RTO and, as a valid RTT sample, resets the backoff; a duplicate ACK that only SACKs ({@code
   * advancesUna} false) takes the bytes out of flight and does none of that ({@code tcp_ack}:
   * {@code tcp_cong_avoid} needs {@code FLAG_DATA_ACKED}).
   */
  void ack(int f, long b, boolean advancesUna, long now) {
    inflight[f] -= b;
    boolean open = resolved[f] >= recover[f]; // TCP_CA_Open: not recovering a window's losses
    resolved[f] += b;
    if (advancesUna) {
      if (open) {
        cubic.acked(f, (b + mss - 1) / mss);
      }
      grow(f, b, now);
      backoff[f] = 0;
      rto[f] = RTO_MIN_NS;
      rtoAt[f] = now + rto[f];
    }
  }

  /** Fast retransmit of {@code lost} bytes: out of flight, resent first; the window cut once per window. */
  void fastRetransmit(int f, long lost) {
    fastRetransmits++;
    inflight[f] -= lost;
    resend[f] += lost;
    if (resolved[f] >= recover[f]) { // once per window (tcp_enter_recovery / cwr)
      ssthresh[f] = cubic.recalcSsthresh(f, Math.max(1, cwnd[f] / mss)) * mss; // bictcp_recalc_ssthresh
      cwnd[f] = ssthresh[f];
      cwndCnt[f] = 0;
      recover[f] = sent[f];
    }
    resolved[f] += lost;
  }

  /**
   * {@code tcp_retransmit_timer} for stream {@code f} at {@code now} with {@code lost} bytes
   * unreported: {@code tcp_enter_loss} ({@code ssthresh} cut, {@code cwnd} one segment), the lost
   * bytes resent, then the backoff: {@code icsk_rto = min(icsk_rto << 1, TCP_RTO_MAX)} and the
   * timer re-armed with it.
   */
  void timeout(int f, long lost, long now) {
    timeouts++;
    inflight[f] -= lost;
    resend[f] += lost;
    resolved[f] += lost;
    ssthresh[f] = cubic.recalcSsthresh(f, Math.max(1, cwnd[f] / mss)) * mss; // tcp_enter_loss: ca_ops->ssthresh
    cubic.reset(f); // tcp_set_ca_state(TCP_CA_Loss) -> bictcp_state -> bictcp_reset
    cwnd[f] = mss;
    cwndCnt[f] = 0;
    recover[f] = sent[f];
    backoff[f]++;
    rto[f] = Math.min(rto[f] << 1, RTO_MAX_NS);
    rtoAt[f] = now + rto[f];
  }

  /**
   * An ACK of {@code b} bytes at {@code now} opens {@code flow}'s congestion window, as 3.0.27
   * {@code bictcp_cong_avoid} does: slow start while {@code snd_cwnd <= snd_ssthresh} (by the
   * bytes ACKed [simplification: 3.0's {@code tcp_slow_start} with {@code tcp_abc} = 0 adds one
   * packet per ACK]), else {@code bictcp_update} and {@code tcp_cong_avoid_ai(tp, ca->cnt)}: one
   * packet more after {@code cnt} ACKs. Never beyond the receive window.
   */
  private void grow(int f, long b, long now) {
    long c = cwnd[f];
    if (c <= ssthresh[f]) {
      c += b;
    } else {
      long packets = Math.max(1, c / mss);
      cubic.update(f, packets, now);
      if (cwndCnt[f] >= cubic.cnt(f)) {
        packets++;
        cwndCnt[f] = 0;
      } else {
        cwndCnt[f]++;
      }
      c = packets * mss;
    }
    cwnd[f] = Math.min(c, window);
  }
}

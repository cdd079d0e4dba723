package org.lockvisor.devices.vhostnet;

/**
 * CUBIC's window growth in congestion avoidance, per stream, as 3.0.27 net/ipv4/tcp_cubic.c
 * computes it (the external guest-receive sender's congestion control: CUBIC is 3.0's default,
 * {@code CONFIG_DEFAULT_TCP_CONG "cubic"}). Integer arithmetic as the kernel's, in packets and
 * jiffies:
 *
 * <ul>
 *   <li>{@link #update} is {@code bictcp_update}: per ACK, at most every {@code HZ/32} while the
 *       window is unchanged; an epoch starts at the first ACK after a loss, with {@code bic_K =
 *       cubic_root(cube_factor * (last_max_cwnd - cwnd))} and the origin at {@code last_max_cwnd};
 *       the target {@code origin ± (cube_rtt_scale * |t - K|^3) >> 40} with {@code t} in 1/1024 s;
 *       {@code cnt = cwnd / (target - cwnd)}, or {@code 100 * cwnd} at or above the target; at most
 *       20 before the first loss; the TCP-friendly estimate ({@code tcp_friendliness = 1},
 *       {@code beta_scale}) caps it; scaled by the delayed-ACK ratio.
 *   <li>{@link #lossSsthresh} is {@code bictcp_recalc_ssthresh}: the epoch ends; {@code
 *       last_max_cwnd} with fast convergence ({@code fast_convergence = 1}); {@code loss_cwnd};
 *       {@code max(cwnd * beta / 1024, 2)}.
 *   <li>{@link #reset} is {@code bictcp_state(TCP_CA_Loss)} → {@code bictcp_reset} (a timeout).
 *   <li>{@link #acked} is {@code bictcp_acked}'s delayed-ACK ratio ({@code delayed_ack}, in
 *       {@code TCP_CA_Open}).
 * </ul>
 *
 * <p>Not modelled: HyStart (slow start stays {@code tcp_slow_start} as the sender's), and the
 * {@code delay_min} term of {@code t} (the minimum RTT, under a millisecond on this LAN, adds no
 * jiffy at HZ 250). Allocation-free: primitive arrays per stream.
 */
final class Cubic {
  /** net/ipv4/tcp_cubic.c 3.0.27: {@code #define BICTCP_BETA_SCALE 1024}. */
  static final int BETA_SCALE = 1024;
  /** {@code #define BICTCP_HZ 10}: time in 1/1024 s. */
  static final int BICTCP_HZ = 10;
  /** {@code static int bic_scale = 41}. */
  static final int BIC_SCALE = 41;
  /** {@code cubictcp_register}: {@code cube_rtt_scale = bic_scale * 10}. */
  static final long CUBE_RTT_SCALE = BIC_SCALE * 10;
  /** {@code cubictcp_register}: {@code cube_factor = (1ull << (10 + 3 * BICTCP_HZ)) / (bic_scale * 10)}. */
  static final long CUBE_FACTOR = (1L << (10 + 3 * BICTCP_HZ)) / (BIC_SCALE * 10);
  /** {@code cubictcp_register}: {@code beta_scale = 8 * (BICTCP_BETA_SCALE + beta) / 3 / (BICTCP_BETA_SCALE - beta)}. */
  static final long BETA_SCALE_FRIENDLY = 8L * (BETA_SCALE + ExternalSender.CUBIC_BETA) / 3
      / (BETA_SCALE - ExternalSender.CUBIC_BETA);
  /** {@code #define ACK_RATIO_SHIFT 4}, {@code ACK_RATIO_LIMIT (32u << ACK_RATIO_SHIFT)}. */
  static final int ACK_RATIO_SHIFT = 4;
  static final long ACK_RATIO_LIMIT = 32L << ACK_RATIO_SHIFT;
  /** kernel/Kconfig.hz 3.0.27: {@code default HZ_250}, the sender host's jiffy. */
  static final int HZ = 250;

  /** cubic_root's table: {@code v[x] = cbrt(x << 18) - 1}, refined by hand (tcp_cubic.c 3.0.27). */
  private static final int[] V = {
      0, 54, 54, 54, 118, 118, 118, 118, 123, 129, 134, 138, 143, 147, 151, 156,
      157, 161, 164, 168, 170, 173, 176, 179, 181, 185, 187, 190, 192, 194, 197, 199,
      200, 202, 204, 206, 209, 211, 213, 215, 217, 219, 221, 222, 224, 225, 227, 229,
      231, 232, 234, 236, 237, 239, 240, 242, 244, 245, 246, 248, 250, 251, 252, 254,
  };

  final long[] cnt;
  final long[] lastMaxCwnd;
  private final long[] lossCwnd;
  private final long[] lastCwnd;
  private final long[] lastTime;
  private final long[] originPoint;
  final long[] bicK;
  /** The epoch's start in jiffies, or -1: none ({@code epoch_start == 0} in the kernel). */
  final long[] epochStart;
  private final long[] ackCnt;
  private final long[] tcpCwnd;
  private final long[] delayedAck;

  Cubic(int streams) {
    cnt = new long[streams];
    lastMaxCwnd = new long[streams];
    lossCwnd = new long[streams];
    lastCwnd = new long[streams];
    lastTime = new long[streams];
    originPoint = new long[streams];
    bicK = new long[streams];
    epochStart = new long[streams];
    ackCnt = new long[streams];
    tcpCwnd = new long[streams];
    delayedAck = new long[streams];
    for (int f = 0; f < streams; f++) {
      reset(f);
    }
  }

  /** {@code bictcp_reset}: a timeout ({@code bictcp_state(TCP_CA_Loss)}) forgets the flow's history. */
  void reset(int f) {
    cnt[f] = 0;
    lastMaxCwnd[f] = 0;
    lossCwnd[f] = 0;
    lastCwnd[f] = 0;
    lastTime[f] = 0;
    originPoint[f] = 0;
    bicK[f] = 0;
    epochStart[f] = -1;
    delayedAck[f] = 2 << ACK_RATIO_SHIFT;
    ackCnt[f] = 0;
    tcpCwnd[f] = 0;
  }

  /** {@code bictcp_acked} in {@code TCP_CA_Open}: the packets-per-ACK ratio, {@code << ACK_RATIO_SHIFT}. */
  void acked(int f, long packets) {
    long ratio = delayedAck[f] - (delayedAck[f] >> ACK_RATIO_SHIFT) + packets;
    delayedAck[f] = Math.min(ratio, ACK_RATIO_LIMIT);
  }

  /** {@code bictcp_recalc_ssthresh} at a loss with the window at {@code cwnd} packets: the new ssthresh. */
  long lossSsthresh(int f, long cwnd) {
    epochStart[f] = -1; // end of epoch
    if (cwnd < lastMaxCwnd[f]) { // fast_convergence
      lastMaxCwnd[f] = cwnd * (BETA_SCALE + ExternalSender.CUBIC_BETA) / (2 * BETA_SCALE);
    } else {
      lastMaxCwnd[f] = cwnd;
    }
    lossCwnd[f] = cwnd;
    return Math.max(cwnd * ExternalSender.CUBIC_BETA / BETA_SCALE, 2);
  }

  /** {@code bictcp_update} for an ACK at {@code jiffies} with the window at {@code cwnd} packets: sets {@link #cnt}. */
  void update(int f, long cwnd, long jiffies) {
    ackCnt[f]++;
    if (lastCwnd[f] == cwnd && jiffies - lastTime[f] <= HZ / 32) {
      return;
    }
    lastCwnd[f] = cwnd;
    lastTime[f] = jiffies;
    if (epochStart[f] < 0) {
      epochStart[f] = jiffies;
      ackCnt[f] = 1;
      tcpCwnd[f] = cwnd;
      if (lastMaxCwnd[f] <= cwnd) {
        bicK[f] = 0;
        originPoint[f] = cwnd;
      } else {
        bicK[f] = cubicRoot(CUBE_FACTOR * (lastMaxCwnd[f] - cwnd));
        originPoint[f] = lastMaxCwnd[f];
      }
    }
    long t = ((jiffies - epochStart[f]) << BICTCP_HZ) / HZ; // + msecs_to_jiffies(delay_min >> 3): 0 here
    long offs = t < bicK[f] ? bicK[f] - t : t - bicK[f];
    long delta = (CUBE_RTT_SCALE * offs * offs * offs) >>> (10 + 3 * BICTCP_HZ);
    long target = t < bicK[f] ? originPoint[f] - delta : originPoint[f] + delta;
    long c = target > cwnd ? cwnd / (target - cwnd) : 100 * cwnd;
    if (lossCwnd[f] == 0 && c > 20) {
      c = 20; // the initial growth: 5 % per RTT before the first loss
    }
    long d = (cwnd * BETA_SCALE_FRIENDLY) >> 3; // tcp_friendliness
    while (ackCnt[f] > d && d > 0) {
      ackCnt[f] -= d;
      tcpCwnd[f]++;
    }
    if (tcpCwnd[f] > cwnd) {
      long maxCnt = cwnd / (tcpCwnd[f] - cwnd);
      if (c > maxCnt) {
        c = maxCnt;
      }
    }
    c = (c << ACK_RATIO_SHIFT) / delayedAck[f];
    cnt[f] = c == 0 ? 1 : c;
  }

  /** {@code cubic_root}: a table lookup and one Newton-Raphson step (tcp_cubic.c 3.0.27). */
  static long cubicRoot(long a) {
    int b = 64 - Long.numberOfLeadingZeros(a); // fls64
    if (b < 7) {
      return ((long) V[(int) a] + 35) >> 6;
    }
    b = ((b * 84) >> 8) - 1;
    int shift = (int) (a >>> (b * 3));
    long x = ((((long) V[shift] + 10) << b) & 0xffffffffL) >> 6;
    x = 2 * x + a / (x * (x - 1));
    x = (x * 341) >> 10;
    return x;
  }
}

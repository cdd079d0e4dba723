package org.lockvisor.devices.tcp;

/**
 * CUBIC, the 3.0.27 kernel's default congestion control ({@code CONFIG_DEFAULT_TCP_CONG "cubic"}),
 * per flow, as net/ipv4/tcp_cubic.c computes it, with its module parameters at their defaults
 * ({@code fast_convergence} 1, {@code beta} 717, {@code bic_scale} 41, {@code tcp_friendliness}
 * 1). Integer arithmetic as the kernel's: windows in packets ({@code snd_cwnd}), time in the
 * sender's jiffies ({@code tcp_time_stamp}), {@code u32} wrap-around where the kernel's variables
 * are {@code u32}, and the kernel's {@code cubic_root} (a table and one Newton-Raphson step, not an
 * exact cube root).
 *
 * <ul>
 *   <li>{@link #update} is {@code bictcp_update}: per ACK in congestion avoidance, at most every
 *       {@code HZ/32} jiffies while the window is unchanged; an epoch starts at the first update
 *       after a loss, with {@code bic_K = cubic_root(cube_factor * (last_max_cwnd - cwnd))} and the
 *       origin at {@code last_max_cwnd}; the target {@code origin ± (cube_rtt_scale * |t - K|^3)
 *       >> 40} with {@code t} in 1/1024 s; {@code cnt = cwnd / (target - cwnd)}, or {@code 100 *
 *       cwnd} at or above the target; at most 20 before the first loss; capped by the TCP-friendly
 *       estimate ({@code beta_scale}); scaled by the delayed-ACK ratio. The caller applies {@link
 *       #cnt} as net/ipv4/tcp_cong.c's {@code tcp_cong_avoid_ai} does.
 *   <li>{@link #recalcSsthresh} is {@code bictcp_recalc_ssthresh}: the epoch ends; {@code
 *       last_max_cwnd} with fast convergence; {@code loss_cwnd}; {@code max(cwnd * 717 / 1024, 2)}.
 *   <li>{@link #undoCwnd} is {@code bictcp_undo_cwnd}; {@link #reset} is {@code bictcp_reset}
 *       ({@code bictcp_init}, and {@code bictcp_state(TCP_CA_Loss)} at a timeout).
 *   <li>{@link #acked} is {@code bictcp_acked}'s delayed-ACK ratio; the caller calls it in {@code
 *       TCP_CA_Open} only, with the packets the ACK took off the retransmit queue.
 * </ul>
 *
 * <p>What differs between senders is a parameter: the sender's jiffy (its kernel's {@code HZ}),
 * given at construction; the window, the time and the packets acknowledged, given per call. Not
 * modelled: HyStart (the callers' slow start is {@code tcp_slow_start}) and the {@code delay_min}
 * term of {@code t} ({@code msecs_to_jiffies(delay_min >> 3)}: 0 while the minimum RTT is under a
 * millisecond, as on the modelled LAN). Allocation-free: primitive arrays per flow.
 */
public final class Cubic {
  /** net/ipv4/tcp_cubic.c 3.0.27: {@code static int beta __read_mostly = 717;} (/1024). */
  public static final int BETA = 717;
  /** {@code #define BICTCP_BETA_SCALE 1024}. */
  public static final int BETA_SCALE = 1024;
  /** {@code #define BICTCP_HZ 10}: time in 1/1024 s. */
  static final int BICTCP_HZ = 10;
  /** {@code static int bic_scale __read_mostly = 41;}: C = 41 * 10 / 1024 ≈ 0.4 packets/s³. */
  public static final int BIC_SCALE = 41;
  /** {@code cubictcp_register}: {@code cube_rtt_scale = bic_scale * 10}. */
  static final long CUBE_RTT_SCALE = BIC_SCALE * 10;
  /** {@code cubictcp_register}: {@code cube_factor = 1ull << (10 + 3 * BICTCP_HZ)}, {@code do_div(cube_factor, bic_scale * 10)}. */
  static final long CUBE_FACTOR = (1L << (10 + 3 * BICTCP_HZ)) / CUBE_RTT_SCALE;
  /** {@code cubictcp_register}: {@code beta_scale = 8 * (BICTCP_BETA_SCALE + beta) / 3 / (BICTCP_BETA_SCALE - beta)}, 15. */
  static final long FRIENDLY_SCALE = 8L * (BETA_SCALE + BETA) / 3 / (BETA_SCALE - BETA);
  /** {@code #define ACK_RATIO_SHIFT 4}, {@code ACK_RATIO_LIMIT (32u << ACK_RATIO_SHIFT)}. */
  static final int ACK_RATIO_SHIFT = 4;
  static final long ACK_RATIO_LIMIT = 32L << ACK_RATIO_SHIFT;
  private static final long U32 = 0xffffffffL;

  /** cubic_root's table: {@code v[x] = cbrt(x << 18) - 1}, "refined by hand" (tcp_cubic.c 3.0.27). */
  private static final int[] V = {
      0, 54, 54, 54, 118, 118, 118, 118, 123, 129, 134, 138, 143, 147, 151, 156,
      157, 161, 164, 168, 170, 173, 176, 179, 181, 185, 187, 190, 192, 194, 197, 199,
      200, 202, 204, 206, 209, 211, 213, 215, 217, 219, 221, 222, 224, 225, 227, 229,
      231, 232, 234, 236, 237, 239, 240, 242, 244, 245, 246, 248, 250, 251, 252, 254,
  };

  /** The sender's jiffy, ns, and its {@code HZ} ({@code 1e9 / jiffyNs}). */
  private final long jiffyNs;
  private final long hz;

  // struct bictcp, one slot per flow (HyStart's fields and delay_min are not modelled)
  private final long[] cnt;
  private final long[] lastMaxCwnd;
  private final long[] lossCwnd;
  private final long[] lastCwnd;
  private final long[] lastTime;
  private final long[] originPoint;
  private final long[] bicK;
  /** {@code epoch_start} in {@code tcp_time_stamp} jiffies; 0: no epoch, as in the kernel. */
  private final long[] epochStart;
  private final long[] ackCnt;
  private final long[] tcpCwnd;
  private final long[] delayedAck;

  /**
   * CUBIC state for {@code flows} flows of a sender whose kernel ticks every {@code jiffyNs}
   * ({@code 1e9 / HZ}: kernel/Kconfig.hz's choice of the sender's kernel).
   */
  public Cubic(int flows, long jiffyNs) {
    if (flows < 1 || jiffyNs < 1 || jiffyNs > 1_000_000_000L) {
      throw new IllegalArgumentException("Cubic needs flows >= 1 and a jiffy of 1 ns to 1 s: " + flows + ", "
          + jiffyNs);
    }
    this.jiffyNs = jiffyNs;
    this.hz = 1_000_000_000L / jiffyNs;
    cnt = new long[flows];
    lastMaxCwnd = new long[flows];
    lossCwnd = new long[flows];
    lastCwnd = new long[flows];
    lastTime = new long[flows];
    originPoint = new long[flows];
    bicK = new long[flows];
    epochStart = new long[flows];
    ackCnt = new long[flows];
    tcpCwnd = new long[flows];
    delayedAck = new long[flows];
    for (int f = 0; f < flows; f++) {
      reset(f);
    }
  }

  /** {@code bictcp_reset}: the flow's history forgotten ({@code bictcp_init}; a timeout's {@code bictcp_state(TCP_CA_Loss)}). */
  public void reset(int f) {
    cnt[f] = 0;
    lastMaxCwnd[f] = 0;
    lossCwnd[f] = 0;
    lastCwnd[f] = 0;
    lastTime[f] = 0;
    originPoint[f] = 0;
    bicK[f] = 0;
    epochStart[f] = 0;
    delayedAck[f] = 2 << ACK_RATIO_SHIFT;
    ackCnt[f] = 0;
    tcpCwnd[f] = 0;
  }

  /** {@code bictcp_acked} in {@code TCP_CA_Open}: {@code ratio = 15/16 ratio + packets}, the packets-per-ACK ratio {@code << 4}. */
  public void acked(int f, long packets) {
    long ratio = delayedAck[f] - (delayedAck[f] >> ACK_RATIO_SHIFT) + packets;
    delayedAck[f] = Math.min(ratio, ACK_RATIO_LIMIT);
  }

  /** {@code bictcp_recalc_ssthresh} at a loss with the window at {@code cwnd} packets: the new ssthresh, packets. */
  public long recalcSsthresh(int f, long cwnd) {
    epochStart[f] = 0; // end of epoch
    if (cwnd < lastMaxCwnd[f]) { // Wmax and fast convergence
      lastMaxCwnd[f] = (cwnd * (BETA_SCALE + BETA) & U32) / (2 * BETA_SCALE);
    } else {
      lastMaxCwnd[f] = cwnd;
    }
    lossCwnd[f] = cwnd;
    return Math.max((cwnd * BETA & U32) / BETA_SCALE, 2);
  }

  /** {@code bictcp_undo_cwnd}: {@code max(snd_cwnd, last_max_cwnd)}. */
  public long undoCwnd(int f, long cwnd) {
    return Math.max(cwnd, lastMaxCwnd[f]);
  }

  /**
   * {@code bictcp_update} for an ACK at {@code nowNs} with the window at {@code cwnd >= 1}
   * packets: sets {@link #cnt}, the ACKs per one-packet increase.
   */
  public void update(int f, long cwnd, long nowNs) {
    long now = nowNs / jiffyNs + 1; // tcp_time_stamp; never 0, which marks "no epoch"
    ackCnt[f]++; // count the number of ACKs
    if (lastCwnd[f] == cwnd && now - lastTime[f] <= hz / 32) {
      return;
    }
    lastCwnd[f] = cwnd;
    lastTime[f] = now;
    if (epochStart[f] == 0) {
      epochStart[f] = now; // record the beginning of an epoch
      ackCnt[f] = 1;
      tcpCwnd[f] = cwnd; // syn with cubic
      if (lastMaxCwnd[f] <= cwnd) {
        bicK[f] = 0;
        originPoint[f] = cwnd;
      } else {
        bicK[f] = cubicRoot(CUBE_FACTOR * (lastMaxCwnd[f] - cwnd));
        originPoint[f] = lastMaxCwnd[f];
      }
    }
    // u32: (tcp_time_stamp + msecs_to_jiffies(delay_min >> 3) - epoch_start) << BICTCP_HZ, / HZ
    long t = ((now - epochStart[f]) << BICTCP_HZ & U32) / hz;
    long k = bicK[f];
    long offs = t < k ? k - t : t - k;
    long delta = (CUBE_RTT_SCALE * offs * offs * offs) >>> (10 + 3 * BICTCP_HZ) & U32; // u64, then u32
    long target = (t < k ? originPoint[f] - delta : originPoint[f] + delta) & U32;
    long c = target > cwnd ? cwnd / (target - cwnd) : 100 * cwnd;
    if (lossCwnd[f] == 0 && c > 20) {
      c = 20; // the initial growth: 5 % per RTT before the first loss
    }
    long d = (cwnd * FRIENDLY_SCALE & U32) >> 3; // tcp_friendliness
    while (ackCnt[f] > d && d > 0) { // d > 0: cwnd >= 1, as snd_cwnd always is
      ackCnt[f] -= d;
      tcpCwnd[f]++;
    }
    if (tcpCwnd[f] > cwnd) { // bic is slower than tcp
      long maxCnt = cwnd / (tcpCwnd[f] - cwnd);
      if (c > maxCnt) {
        c = maxCnt;
      }
    }
    c = (c << ACK_RATIO_SHIFT & U32) / delayedAck[f];
    cnt[f] = c == 0 ? 1 : c; // cannot be zero
  }

  /** {@code ca->cnt}: the ACKs the flow needs per one-packet increase, from the last {@link #update}. */
  public long cnt(int f) {
    return cnt[f];
  }

  /** {@code last_max_cwnd}, packets. */
  public long lastMaxCwnd(int f) {
    return lastMaxCwnd[f];
  }

  /** {@code bic_K}: the epoch's time to the origin, 1/1024 s. */
  public long bicK(int f) {
    return bicK[f];
  }

  /** Whether an epoch runs ({@code epoch_start != 0}). */
  public boolean inEpoch(int f) {
    return epochStart[f] != 0;
  }

  /** The sender's {@code HZ}. */
  public long hz() {
    return hz;
  }

  /** {@code cubic_root}: the table's estimate and one Newton-Raphson step, "avg err ~= 0.195%" (tcp_cubic.c 3.0.27). */
  public static long cubicRoot(long a) {
    int b = 64 - Long.numberOfLeadingZeros(a); // fls64
    if (b < 7) { // a in [0..63]
      return ((long) V[(int) a] + 35) >> 6;
    }
    b = ((b * 84) >> 8) - 1;
    int shift = (int) (a >>> (b * 3));
    long x = ((((long) V[shift] + 10) << b) & U32) >> 6;
    x = (2 * x + Long.divideUnsigned(a, x * (x - 1))) & U32;
    return (x * 341 & U32) >> 10;
  }
}

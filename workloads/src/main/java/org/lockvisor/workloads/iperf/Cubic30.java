package org.lockvisor.workloads.iperf;

/**
 * A 3.0.27 TCP sender's congestion window ({@code snd_cwnd}, {@code snd_cwnd_cnt},
 * {@code snd_ssthresh}, in segments) and CUBIC, its default congestion control
 * (net/ipv4/tcp_cubic.c: {@code beta} 717/1024, {@code fast_convergence} 1, {@code bic_scale} 41,
 * {@code tcp_friendliness} 1) with net/ipv4/tcp_cong.c's {@code tcp_slow_start} (no ABC,
 * {@code sysctl_tcp_abc} = 0: one segment per ACK), {@code tcp_cong_avoid_ai} and
 * {@code tcp_is_cwnd_limited}. HyStart ({@code hystart} = 1) is not modelled: slow start ends at
 * ssthresh or a loss.
 *
 * <p>Split out of {@link SackSender}: it reads nothing of the sender but what it is given.
 */
final class Cubic30 {
  static final int BETA = 717;
  static final int BETA_SCALE = 1024;
  private static final int BICTCP_HZ = 10;
  private static final long CUBE_RTT_SCALE = 41 * 10;
  private static final long CUBE_FACTOR = (1L << (10 + 3 * BICTCP_HZ)) / CUBE_RTT_SCALE;
  private static final int FRIENDLY_SCALE = 8 * (BETA_SCALE + BETA) / 3 / (BETA_SCALE - BETA);
  private static final int ACK_RATIO_SHIFT = 4;
  private static final int ACK_RATIO_LIMIT = 32 << ACK_RATIO_SHIFT;

  private final long tickNs;
  private final int clamp;
  int cwnd;
  int cwndCnt;
  int ssthresh = 0x7fffffff; // TCP_INFINITE_SSTHRESH

  // struct bictcp
  private long cnt;
  private long lastMaxCwnd;
  private long lossCwnd;
  private long lastCwnd;
  private long lastTime;
  private long originPoint;
  private long bicK;
  private long epochStart;
  private long ackCnt;
  private long tcpCwnd;
  private long delayedAck = 2 << ACK_RATIO_SHIFT;

  Cubic30(int initCwnd, int clamp, long tickNs) {
    this.cwnd = initCwnd;
    this.clamp = clamp;
    this.tickNs = tickNs;
  }

  /** {@code bictcp_recalc_ssthresh}: Wmax with fast convergence; returns max(cwnd × 717 / 1024, 2). */
  int recalcSsthresh() {
    epochStart = 0;
    if (cwnd < lastMaxCwnd) {
      lastMaxCwnd = (long) cwnd * (BETA_SCALE + BETA) / (2 * BETA_SCALE);
    } else {
      lastMaxCwnd = cwnd;
    }
    lossCwnd = cwnd;
    return Math.max(cwnd * BETA / BETA_SCALE, 2);
  }

  /** {@code bictcp_undo_cwnd}: max(snd_cwnd, last_max_cwnd). */
  int undoCwnd() {
    return (int) Math.max(cwnd, lastMaxCwnd);
  }

  /** {@code bictcp_state(TCP_CA_Loss)} → {@code bictcp_reset}. */
  void reset() {
    cnt = lastMaxCwnd = lossCwnd = lastCwnd = lastTime = originPoint = bicK = epochStart = 0;
    ackCnt = tcpCwnd = 0;
    delayedAck = 2 << ACK_RATIO_SHIFT;
  }

  /** {@code bictcp_acked} in {@code TCP_CA_Open}: the packets-per-ACK ratio. */
  void acked(int packets) {
    long ratio = delayedAck - (delayedAck >> ACK_RATIO_SHIFT) + packets;
    delayedAck = Math.min(ratio, ACK_RATIO_LIMIT);
  }

  /** {@code bictcp_cong_avoid} of one ACK, with the packets in flight before it. */
  void congAvoid(int priorInFlight, int mss, int maxBurst, long now) {
    if (!cwndLimited(priorInFlight, mss, maxBurst)) {
      return;
    }
    if (cwnd <= ssthresh) {
      cwndCnt += cwnd; // tcp_slow_start
      while (cwndCnt >= cwnd) {
        cwndCnt -= cwnd;
        if (cwnd < clamp) {
          cwnd++;
        }
      }
      return;
    }
    update(now);
    if (cwndCnt >= cnt) { // tcp_cong_avoid_ai
      if (cwnd < clamp) {
        cwnd++;
      }
      cwndCnt = 0;
    } else {
      cwndCnt++;
    }
  }

  /**
   * {@code tcp_is_cwnd_limited}, {@code sysctl_tcp_tso_win_divisor} 3, {@code gso_max_size} 64 KiB;
   * {@code maxBurst} is {@code tcp_max_burst} = {@code tp->reordering}.
   */
  private boolean cwndLimited(int inFlight, int mss, int maxBurst) {
    if (inFlight >= cwnd) {
      return true;
    }
    int left = cwnd - inFlight;
    if (left * 3 < cwnd && (long) left * mss < 65536) {
      return true;
    }
    return left <= maxBurst;
  }

  /** {@code bictcp_update}: the cubic target and the TCP-friendly bound give {@code cnt}. */
  private void update(long now) {
    long jiffies = now / tickNs + 1; // tcp_time_stamp (0 marks "no epoch")
    long hz = 1_000_000_000L / tickNs;
    ackCnt++;
    if (lastCwnd == cwnd && jiffies - lastTime <= hz / 32) {
      return;
    }
    lastCwnd = cwnd;
    lastTime = jiffies;
    if (epochStart == 0) {
      epochStart = jiffies;
      ackCnt = 1;
      tcpCwnd = cwnd;
      if (lastMaxCwnd <= cwnd) {
        bicK = 0;
        originPoint = cwnd;
      } else {
        bicK = (long) Math.cbrt((double) CUBE_FACTOR * (lastMaxCwnd - cwnd)); // cubic_root
        originPoint = lastMaxCwnd;
      }
    }
    // delay_min below a millisecond: msecs_to_jiffies(delay_min >> 3) = 0
    long t = ((jiffies - epochStart) << BICTCP_HZ) / hz;
    long offs = t < bicK ? bicK - t : t - bicK;
    long delta = (CUBE_RTT_SCALE * offs * offs * offs) >> (10 + 3 * BICTCP_HZ);
    long target = t < bicK ? originPoint - delta : originPoint + delta;
    cnt = target > cwnd ? cwnd / (target - cwnd) : 100L * cwnd;
    if (lossCwnd == 0 && cnt > 20) {
      cnt = 20;
    }
    long d = ((long) cwnd * FRIENDLY_SCALE) >> 3; // tcp_friendliness
    while (ackCnt > d) {
      ackCnt -= d;
      tcpCwnd++;
    }
    if (tcpCwnd > cwnd) {
      long maxCnt = cwnd / (tcpCwnd - cwnd);
      if (cnt > maxCnt) {
        cnt = maxCnt;
      }
    }
    cnt = (cnt << ACK_RATIO_SHIFT) / delayedAck;
    if (cnt == 0) {
      cnt = 1;
    }
  }
}

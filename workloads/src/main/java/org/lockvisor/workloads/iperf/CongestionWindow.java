package org.lockvisor.workloads.iperf;

import org.lockvisor.devices.tcp.Cubic;

/**
 * A 3.0.27 TCP sender's congestion window ({@code snd_cwnd}, {@code snd_cwnd_cnt},
 * {@code snd_ssthresh}, in segments) under CUBIC, its default congestion control ({@link Cubic},
 * net/ipv4/tcp_cubic.c, one flow at the guest's HZ), with net/ipv4/tcp_cong.c's
 * {@code tcp_slow_start} (no ABC, {@code sysctl_tcp_abc} = 0: one segment per ACK),
 * {@code tcp_cong_avoid_ai} and {@code tcp_is_cwnd_limited}: {@code bictcp_cong_avoid}. HyStart
 * ({@code hystart} = 1) is not modelled: slow start ends at ssthresh or a loss.
 *
 * <p>Split out of {@link SackSender}: it reads nothing of the sender but what it is given.
 */
final class CongestionWindow {
  private final Cubic cubic;
  private final int clamp;
  int cwnd;
  int cwndCnt;
  int ssthresh = 0x7fffffff; // TCP_INFINITE_SSTHRESH

  /** {@code tickNs}: the guest kernel's jiffy (1e9 / HZ), CUBIC's clock. */
  CongestionWindow(int initCwnd, int clamp, long tickNs) {
    this.cwnd = initCwnd;
    this.clamp = clamp;
    this.cubic = new Cubic(1, tickNs);
  }

  /** {@code bictcp_recalc_ssthresh}: Wmax with fast convergence; returns max(cwnd × 717 / 1024, 2). */
  int recalcSsthresh() {
    return (int) cubic.recalcSsthresh(0, cwnd);
  }

  /** {@code bictcp_undo_cwnd}: max(snd_cwnd, last_max_cwnd). */
  int undoCwnd() {
    return (int) cubic.undoCwnd(0, cwnd);
  }

  /** {@code bictcp_state(TCP_CA_Loss)} → {@code bictcp_reset}. */
  void reset() {
    cubic.reset(0);
  }

  /** {@code bictcp_acked} in {@code TCP_CA_Open}: the packets-per-ACK ratio. */
  void acked(int packets) {
    cubic.acked(0, packets);
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
    cubic.update(0, cwnd, now); // bictcp_update
    if (cwndCnt >= cubic.cnt(0)) { // tcp_cong_avoid_ai
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
}

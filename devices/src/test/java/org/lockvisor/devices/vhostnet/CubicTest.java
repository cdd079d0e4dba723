package org.lockvisor.devices.vhostnet;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The external sender's window after a loss follows 3.0.27 CUBIC (net/ipv4/tcp_cubic.c): {@code
 * bictcp_recalc_ssthresh} cuts to {@code cwnd * 717 / 1024} and remembers {@code last_max_cwnd};
 * {@code bictcp_update} then aims at {@code W(t) = W_max - C (K - t)^3} with {@code C} = {@code
 * bic_scale * 10 / 2^10} ≈ 0.4 packets/s³ and {@code K = cbrt((W_max - cwnd) / C)}, so the window
 * comes back to {@code W_max} about {@code K} seconds after the loss and never runs above the
 * curve (while the TCP-friendly estimate stays below it) — where the former linear growth (one
 * packet per window) had won back only a few packets.
 */
class CubicTest {
  private static final int MSS = 8948;
  private static final long MS = 1_000_000;

  @Test
  void cubicRoot_withinAPercentOfTheCubeRoot() {
    for (long a = 64; a < (1L << 50); a = a * 3 + 7) {
      double exact = Math.cbrt((double) a);
      assertThat((double) Cubic.cubicRoot(a)).as("cbrt(%s)", a).isBetween(exact * 0.99 - 1, exact * 1.01 + 1);
    }
  }

  @Test
  void afterALoss_theWindowFollowsTheCubicCurveBackToWmaxAtK() {
    ExternalSender s = new ExternalSender(1, 1L << 30, MSS);
    s.cwnd[0] = 100L * MSS;
    s.send(0, 100L * MSS, 0);
    s.fastRetransmit(0, MSS);
    assertThat(s.cwnd[0]).isEqualTo(70L * MSS); // 100 * 717 / 1024
    assertThat(s.cubic.lastMaxCwnd[0]).isEqualTo(100);
    double c = Cubic.BIC_SCALE * 10 / 1024.0; // packets per s^3
    long start = 1_000 * MS;
    long now = start;
    double k = -1;
    long epoch = -1;
    // one ACK of one packet every 10 ms: 100 ACKs/s keeps the TCP-friendly estimate below the curve
    for (int i = 0; i < 500; i++, now += 10 * MS) {
      long before = s.cwnd[0] / MSS; // the window bictcp_update sees at this ACK
      s.ack(0, MSS, true, now);
      long w = s.cwnd[0] / MSS;
      if (epoch < 0 && s.cubic.epochStart[0] >= 0) {
        epoch = now;
        k = Math.cbrt((100 - before) / c);
        assertThat(s.cubic.bicK[0] / 1024.0).as("K in seconds").isBetween(k * 0.99, k * 1.01);
      }
      if (epoch >= 0) {
        double t = (now - epoch) / 1e9;
        double target = t < k ? 100 - c * Math.pow(k - t, 3) : 100 + c * Math.pow(t - k, 3);
        assertThat((double) w).as("cwnd at %.2f s after the epoch began", t).isLessThanOrEqualTo(target + 2);
      }
    }
    double tEnd = (now - epoch) / 1e9;
    assertThat(tEnd).isGreaterThan(k);
    long linear = 71 + (long) (tEnd * 100 / 71); // one packet per window of ACKs, 100 ACKs/s
    assertThat(s.cwnd[0] / MSS).as("back at W_max past K (linear growth: %s)", linear).isBetween(97L, 103L);
  }
}

package org.lockvisor.devices.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The one CUBIC model against 3.0.27 net/ipv4/tcp_cubic.c: {@code cubic_root} ("avg err ~=
 * 0.195%"); {@code bictcp_recalc_ssthresh} cuts to {@code cwnd * 717 / 1024} and remembers {@code
 * last_max_cwnd}, lowered to {@code cwnd * (1 + 0.7) / 2} by fast convergence when the window did
 * not regain it; {@code bictcp_update} then aims at {@code W(t) = W_max - C (K - t)^3} with {@code
 * C = bic_scale * 10 / 2^10} ≈ 0.4 packets/s³ and {@code K = cbrt((W_max - cwnd) / C)} seconds,
 * whatever the sender's HZ; applied as {@code tcp_cong_avoid_ai} does (one packet per {@code cnt}
 * ACKs), the window is back at {@code W_max} about {@code K} seconds after the loss.
 */
class CubicTest {
  private static final long MS = 1_000_000;
  private static final double C = 41 * 10 / 1024.0; // packets per s^3

  @Test
  void cubicRoot_withinAPercentOfTheCubeRoot() {
    for (long a = 64; a < (1L << 50); a = a * 3 + 7) {
      double exact = Math.cbrt((double) a);
      assertThat((double) Cubic.cubicRoot(a)).as("cbrt(%s)", a).isBetween(exact * 0.99 - 1, exact * 1.01 + 1);
    }
    for (long a = 0; a < 64; a++) { // the table's range: cbrt below 4
      assertThat((double) Cubic.cubicRoot(a)).as("cbrt(%s)", a).isBetween(Math.cbrt(a) - 1, Math.cbrt(a) + 1);
    }
  }

  @Test
  void aLoss_cutsTo717Of1024_andFastConvergenceLowersWmax() {
    Cubic c = new Cubic(2, 4 * MS);
    assertThat(c.recalcSsthresh(0, 100)).isEqualTo(70); // 100 * 0.7002
    assertThat(c.lastMaxCwnd(0)).isEqualTo(100);
    assertThat(c.recalcSsthresh(0, 80)).isEqualTo(56); // 80 * 0.7002
    assertThat(c.lastMaxCwnd(0)).as("80 < W_max 100: 80 * (1 + 0.7) / 2").isEqualTo(68);
    assertThat(c.recalcSsthresh(0, 90)).isEqualTo(63);
    assertThat(c.lastMaxCwnd(0)).as("90 >= 68: W_max = cwnd").isEqualTo(90);
    assertThat(c.recalcSsthresh(1, 2)).as("never below 2").isEqualTo(2);
    assertThat(c.lastMaxCwnd(1)).as("flows apart").isEqualTo(2);
    assertThat(c.undoCwnd(0, 50)).isEqualTo(90);
    c.reset(0);
    assertThat(c.lastMaxCwnd(0)).isZero();
    assertThat(c.undoCwnd(0, 50)).isEqualTo(50);
  }

  @Test
  void afterALoss_kIsTheCubeRootOfTheCutOverC_andTheWindowIsBackAtWmaxNearK() {
    for (long jiffyNs : new long[] {4 * MS, MS, 10 * MS}) { // HZ 250, 1000, 100
      Cubic c = new Cubic(1, jiffyNs);
      long cwnd = c.recalcSsthresh(0, 100);
      double k = Math.cbrt((100 - cwnd) / C); // seconds
      long start = 1_000 * MS;
      long cnt = 0;
      double atK = -1;
      // one ACK of one packet every 10 ms (100 ACKs/s keeps the TCP-friendly estimate below the curve)
      for (long now = start; now < start + 5_500 * MS; now += 10 * MS) {
        c.acked(0, 1);
        c.update(0, cwnd, now);
        if (now == start) {
          assertThat(c.inEpoch(0)).isTrue();
          assertThat(c.bicK(0) / 1024.0).as("K in seconds, HZ %s", c.hz()).isBetween(k * 0.99, k * 1.01);
        }
        if (cnt >= c.cnt(0)) { // tcp_cong_avoid_ai
          cwnd++;
          cnt = 0;
        } else {
          cnt++;
        }
        double t = (now - start) / 1e9;
        double target = t < k ? 100 - C * Math.pow(k - t, 3) : 100 + C * Math.pow(t - k, 3);
        assertThat((double) cwnd).as("cwnd %.2f s after the loss, HZ %s", t, c.hz()).isLessThanOrEqualTo(target + 2);
        if (atK < 0 && t >= k) {
          atK = cwnd;
        }
      }
      assertThat(atK).as("the window at K, HZ %s (one packet per window of ACKs: ~76)", c.hz()).isBetween(96.0, 101.0);
      assertThat(cwnd).as("past K it probes above W_max, HZ %s", c.hz()).isBetween(100L, 110L);
    }
  }

  @Test
  void beforeTheFirstLoss_atMost20AcksPerPacket_scaledByTheDelayedAckRatio() {
    Cubic c = new Cubic(1, 4 * MS);
    c.update(0, 1000, 0); // no loss yet: origin at cwnd, the target not above it (cnt 100 * cwnd)
    assertThat(c.cnt(0)).as("min(..., 20) << 4 / delayed_ack 32 (2 packets per ACK)").isEqualTo(10);
    Cubic one = new Cubic(1, 4 * MS);
    Cubic four = new Cubic(1, 4 * MS);
    for (int i = 0; i < 200; i++) {
      one.acked(0, 1); // ratio - ratio >> 4 + 1: from 32, 31, then fixed (31 >> 4 = 1)
      four.acked(0, 4); // rises to the fixed point ratio >> 4 = 4: 64
    }
    one.update(0, 1000, 0);
    four.update(0, 1000, 0);
    assertThat(one.cnt(0)).as("20 << 4 / 31").isEqualTo(10);
    assertThat(four.cnt(0)).as("20 << 4 / 64").isEqualTo(5);
  }
}

package org.lockvisor.devices.vhostnet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.lockvisor.devices.testing.TestMachines.MS;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.devices.testing.TestMachines;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Ops;
import org.lockvisor.machine.Program;
import org.lockvisor.scheduler.builtin.CfsScheduler;

/**
 * The guest-receive external sender learns of a host drop only as a 3.0.27 TCP sender can: from
 * the guest's ACKs of the flow, whose SACK blocks cover what arrived above the hole — it
 * retransmits once {@code fackets_out > tp->reordering} = 3 ({@code tcp_time_to_recover},
 * net/ipv4/tcp_input.c; {@code TCP_FASTRETRANS_THRESH}, include/net/tcp.h) — or from its
 * retransmission timer ({@code TCP_RTO_MIN} 200 ms, doubled per consecutive timeout up to {@code
 * TCP_RTO_MAX} 120 s: {@code tcp_retransmit_timer}, net/ipv4/tcp_timer.c). A loss cuts the
 * congestion window once per window by CUBIC's beta 717/1024 (net/ipv4/tcp_cubic.c), a timeout
 * to one segment ({@code tcp_enter_loss}).
 */
class GuestReceiveSenderTest {
  private static final VhostNetConfig C = VhostNetConfig.defaults().withMtu(1500);

  private static GuestReceive sender(Simulation sim) {
    GuestReceive rx = new GuestReceive(sim, null, C, null, new Packet.Pool(4), 1, 4 << 20, 1,
        new FlowDirector(C.hostAtr(), 1));
    rx.start(); // the first packet: the initial window, TCP_INIT_CWND = 10 segments
    return rx;
  }

  private static void drop(GuestReceive rx, int bytes) {
    rx.tapDrop(new Packet.Pool(1).allocAck(0, bytes));
  }

  private static void deliverAll(GuestReceive rx) {
    while (!rx.backFlow.isEmpty()) {
      rx.onEvent(GuestReceive.EV_ACK, 0);
    }
  }

  @Test
  void tapDrop_reachesTheSenderOnlyWithTheGuestsAcks_andCutsCwndOncePerWindow() {
    GuestReceive rx = sender(new Simulation(1));
    int mss = C.mss();
    assertThat(rx.sender.inflight[0]).isEqualTo(10L * mss);
    drop(rx, 3 * mss);
    drop(rx, 2 * mss);
    assertThat(rx.backFlow.isEmpty()).as("nothing goes back to the sender on a host drop").isTrue();
    assertThat(rx.unreported[0]).isEqualTo(5L * mss);

    rx.ackFromGuest(0, 5L * mss, 0); // 5 segments SACKed above a 5-segment hole: fackets_out 10 > 3
    assertThat(rx.unreported[0]).isZero();
    deliverAll(rx);
    assertThat(rx.sender.resend[0]).isEqualTo(5L * mss);
    assertThat(rx.sender.inflight[0]).isZero();
    long cut = 10L * ExternalSender.CUBIC_BETA / 1024 * mss; // bictcp_recalc_ssthresh, in packets: 7
    assertThat(rx.sender.cwnd[0]).as("cut once; a duplicate ACK does not grow it").isEqualTo(cut);
    assertThat(rx.sender.fastRetransmits).isEqualTo(1);
  }

  @Test
  void oneLostSegment_retransmittedOnlyAtTheThirdDuplicateAck() {
    GuestReceive rx = sender(new Simulation(1));
    int mss = C.mss();
    drop(rx, mss); // segment 1 of 10 lost on the host
    for (int dup = 1; dup <= 3; dup++) {
      rx.ackFromGuest(0, mss, 0); // each later segment arrives alone: one duplicate ACK with its SACK
      deliverAll(rx);
      if (dup < 3) {
        assertThat(rx.sender.resend[0]).as("after %s duplicate ACKs", dup).isZero();
        assertThat(rx.unreported[0]).isEqualTo(mss);
      }
    }
    assertThat(rx.sender.resend[0]).as("fackets_out 4 > reordering 3 at the third").isEqualTo(mss);
    assertThat(rx.sender.fastRetransmits).isEqualTo(1);
  }

  @Test
  void twoLostSegments_fackCountsTheHole_twoDuplicateAcksSuffice() {
    GuestReceive rx = sender(new Simulation(1));
    int mss = C.mss();
    drop(rx, 2 * mss);
    rx.ackFromGuest(0, mss, 0);
    deliverAll(rx);
    assertThat(rx.sender.resend[0]).as("fackets_out 3: not above 3").isZero();
    rx.ackFromGuest(0, mss, 0);
    deliverAll(rx);
    assertThat(rx.sender.resend[0]).as("fackets_out 4 (FACK, sysctl_tcp_fack = 1)").isEqualTo(2L * mss);
  }

  @Test
  void duplicateAcksDoNotRestartTheTimer_advancingAcksDo() {
    ExternalSender s = new ExternalSender(1, 4 << 20, C.mss());
    s.send(0, 10L * C.mss(), 0);
    assertThat(s.rtoAt[0]).isEqualTo(ExternalSender.RTO_MIN_NS);
    s.ack(0, C.mss(), false, 50 * MS); // SACK only: snd_una stays
    assertThat(s.rtoAt[0]).isEqualTo(ExternalSender.RTO_MIN_NS);
    s.ack(0, C.mss(), true, 60 * MS); // advances snd_una: tcp_rearm_rto
    assertThat(s.rtoAt[0]).isEqualTo(60 * MS + ExternalSender.RTO_MIN_NS);
  }

  @Test
  void rtoDoublesOnConsecutiveTimeouts_upToRtoMax_andAnAdvancingAckResetsIt() {
    ExternalSender s = new ExternalSender(1, 4 << 20, C.mss());
    s.send(0, 10L * C.mss(), 0);
    long expected = 200 * MS; // TCP_RTO_MIN = HZ/5
    long now = 0;
    for (int k = 1; k <= 12; k++) {
      now = s.rtoAt[0];
      s.timeout(0, C.mss(), now);
      expected = Math.min(2 * expected, 120_000 * MS); // icsk_rto << 1, at most TCP_RTO_MAX = 120 HZ
      assertThat(s.rto[0]).as("after timeout %s", k).isEqualTo(expected);
      assertThat(s.rtoAt[0]).isEqualTo(now + expected);
      assertThat(s.backoff[0]).isEqualTo(k);
    }
    assertThat(s.rto[0]).isEqualTo(120_000 * MS);
    s.ack(0, C.mss(), true, now + 1); // a valid RTT sample: tcp_set_rto, icsk_backoff = 0
    assertThat(s.rto[0]).isEqualTo(200 * MS);
    assertThat(s.backoff[0]).isZero();
    assertThat(s.cwnd[0]).as("tcp_enter_loss: one segment, then the ACK's slow start").isEqualTo(2L * C.mss());
  }

  @Test
  void noGuestAck_theTimerFires_andBacksOffWhileRetransmissionsAreLostToo() {
    Machine m = new Machine(new Simulation(7));
    m.createHost("host", 2, TestMachines.hostConfig(), CfsScheduler.withDefaults());
    Packet.Pool pool = new Packet.Pool(16);
    GuestReceive rx = new GuestReceive(m.sim(), m.host(), C, null, pool, 1, 4 << 20, 1, new FlowDirector(false, 1));
    rx.buildQueue(0, VhostNetCosts.ESTIMATES, Program.named("netif_receive_skb")
        .op(Ops.work(t -> {
          pool.release(rx.ready[0].poll()); // the guest never ACKs
          return 1_000;
        }, "br_handle_frame"))
        .build());
    rx.start();
    List<Long> timeoutsAt = new ArrayList<>();
    m.sim().scheduleAt(MS, (k, a) -> rx.tapDrop(pool.allocAck(0, C.mss())), 0, 0);
    // each time the timer fires, the retransmission is lost again (the next drop)
    m.sim().scheduleAt(2 * MS, new org.lockvisor.core.sim.EventHandler() {
      @Override
      public void onEvent(int kind, long arg) {
        if (rx.sender.timeouts > timeoutsAt.size()) {
          timeoutsAt.add(m.sim().now());
          rx.tapDrop(pool.allocAck(0, C.mss()));
        }
        m.sim().schedule(MS, this, 0, 0);
      }
    }, 0, 0);
    m.sim().runUntil(6_500 * MS);
    // timeouts at 200, 600, 1400, 3000, 6200 ms (1 ms polling): intervals 400, 800, 1600, 3200
    assertThat(timeoutsAt).hasSize(5);
    assertThat(timeoutsAt.get(0)).isBetween(200 * MS, 202 * MS);
    for (int i = 1; i < timeoutsAt.size(); i++) {
      long interval = timeoutsAt.get(i) - timeoutsAt.get(i - 1);
      assertThat(interval).as("interval %s", i).isBetween((200L << i) * MS - 2 * MS, (200L << i) * MS + 2 * MS);
    }
  }

  /**
   * The external sender drives the shared CUBIC ({@link org.lockvisor.devices.tcp.Cubic}) in
   * packets at its host's HZ: after a fast retransmit of a 100-packet window it is cut to 70 and
   * follows {@code W(t) = W_max - C (K - t)^3} back to {@code W_max} near {@code K =
   * cbrt(30 / C)} s, {@code C} ≈ 0.4 packets/s³ (net/ipv4/tcp_cubic.c 3.0.27) — where one packet
   * per window of ACKs would have won back only a few packets.
   */
  @Test
  void externalSender_afterALoss_followsTheCubicCurveBackToWmaxAtK() {
    int mss = 8948;
    ExternalSender s = new ExternalSender(1, 1L << 30, mss);
    s.cwnd[0] = 100L * mss;
    s.send(0, 100L * mss, 0);
    s.fastRetransmit(0, mss);
    assertThat(s.cwnd[0]).isEqualTo(70L * mss); // 100 * 717 / 1024
    assertThat(s.cubic.lastMaxCwnd(0)).isEqualTo(100);
    double c = 41 * 10 / 1024.0; // bic_scale * 10 / 2^10, packets per s^3
    long start = 1_000 * MS;
    long now = start;
    double k = -1;
    long epoch = -1;
    // one ACK of one packet every 10 ms: 100 ACKs/s keeps the TCP-friendly estimate below the curve
    for (int i = 0; i < 500; i++, now += 10 * MS) {
      long before = s.cwnd[0] / mss; // the window bictcp_update sees at this ACK
      s.ack(0, mss, true, now);
      long w = s.cwnd[0] / mss;
      if (epoch < 0 && s.cubic.inEpoch(0)) {
        epoch = now;
        k = Math.cbrt((100 - before) / c);
        assertThat(s.cubic.bicK(0) / 1024.0).as("K in seconds").isBetween(k * 0.99, k * 1.01);
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
    assertThat(s.cwnd[0] / mss).as("back at W_max past K (linear growth: %s)", linear).isBetween(97L, 103L);
  }
}

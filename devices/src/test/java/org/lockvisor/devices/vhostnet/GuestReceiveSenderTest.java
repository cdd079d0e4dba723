package org.lockvisor.devices.vhostnet;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.lockvisor.core.sim.Simulation;

/**
 * The guest-receive external sender learns of a host tap drop only as a TCP sender can (3.0.27):
 * from the guest's next ACK of the flow (SACK / duplicate ACKs, net/ipv4/tcp_input.c) or from its
 * retransmission timer ({@code TCP_RTO_MIN}, include/net/tcp.h); a loss cuts the congestion window
 * once per window by CUBIC's beta 717/1024 (net/ipv4/tcp_cubic.c), a timeout to one segment
 * ({@code tcp_enter_loss}). Before, the host's drop itself refunded the sender's fixed window, so a
 * sender kept the wire at line rate while the guest received nothing.
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

  @Test
  void tapDrop_reachesTheSenderOnlyWithTheGuestsNextAck_andCutsCwndOncePerWindow() {
    GuestReceive rx = sender(new Simulation(1));
    int mss = C.mss();
    assertThat(rx.inflight[0]).isEqualTo(10L * mss);
    drop(rx, 3 * mss);
    drop(rx, 2 * mss);
    assertThat(rx.backFlow.isEmpty()).as("nothing goes back to the sender on a host drop").isTrue();
    assertThat(rx.unreported[0]).isEqualTo(5L * mss);

    rx.ackFromGuest(0, 5L * mss, 0); // the guest ACKs what it got; its SACK blocks name the hole
    assertThat(rx.unreported[0]).isZero();
    rx.onEvent(GuestReceive.EV_ACK, 0); // the hole
    rx.onEvent(GuestReceive.EV_ACK, 0); // the ACK
    assertThat(rx.resend[0]).isEqualTo(5L * mss);
    assertThat(rx.inflight[0]).isZero();
    long cut = 10L * mss * GuestReceive.CUBIC_BETA / 1024;
    assertThat(rx.cwnd[0]).isBetween(cut, cut + mss); // cut once, then the ACK's growth

    rx.onEvent(GuestReceive.EV_RTO, 0); // the timer armed by the drops finds the hole reported
    assertThat(rx.cwnd[0]).isGreaterThanOrEqualTo(cut);
  }

  @Test
  void noGuestAck_theRetransmissionTimerReportsTheLoss_cwndOneSegment() {
    GuestReceive rx = sender(new Simulation(1));
    int mss = C.mss();
    drop(rx, 10 * mss);
    rx.onEvent(GuestReceive.EV_RTO, 0);
    assertThat(rx.unreported[0]).isZero();
    assertThat(rx.resend[0]).isEqualTo(10L * mss);
    assertThat(rx.inflight[0]).isZero();
    assertThat(rx.cwnd[0]).isEqualTo(mss);
  }
}

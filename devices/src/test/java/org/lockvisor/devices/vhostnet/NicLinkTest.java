package org.lockvisor.devices.vhostnet;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import org.junit.jupiter.api.Test;
import org.lockvisor.devices.testing.TestMachines;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Program;

/**
 * The host NIC's transmit queues with Flow Director ATR (3.0.27 drivers/net/ixgbe/ixgbe_main.c,
 * issue 32): {@code ixgbe_select_queue} puts a CPU's transmits on its own queue, {@code ixgbe_atr}
 * steers a flow's receive to the queue of the CPU that transmitted for it, and packets waiting on
 * two queues leave interleaved, frame by frame; with ATR off there is one FIFO and RSS.
 */
class NicLinkTest {
  private static final VhostNetConfig MTU9000 = VhostNetConfig.defaults().withMtu(9000);

  private static NicLink link(Machine m, VhostNetConfig config) {
    NicLink link = new NicLink(m.sim(), m.host(), config, new Packet.Pool(16),
        new VhostNet("eth0", config, VhostNetCosts.ESTIMATES).stats);
    for (int q = 0; q < link.queues(); q++) {
      link.receiveQueue(q, new ArrayDeque<>(), Program.named("irq").build());
    }
    return link;
  }

  private static Packet packet(Packet.Pool pool, int flow, int bytes) {
    Packet p = pool.alloc();
    p.refs = 1;
    p.flow = flow;
    p.bytes = bytes;
    return p;
  }

  @Test
  void atr_steersAFlowsReceiveQueueToTheCpuThatTransmittedForIt() {
    Machine m = TestMachines.machine(7, 8);
    NicLink link = link(m, MTU9000);
    Packet.Pool pool = new Packet.Pool(4);
    link.enqueue(packet(pool, 7, 8948), 3);
    assertThat(link.flowDirector().receiveQueue(7)).isEqualTo(3); // the flow's first packet is sampled
    for (int i = 0; i < FlowDirector.ATR_SAMPLE_RATE; i++) {
      link.enqueue(packet(pool, 7, 8948), 5); // the worker moved to CPU 5: its 20th packet there is sampled
    }
    assertThat(link.flowDirector().receiveQueue(7)).isEqualTo(5);
  }

  @Test
  void twoTransmitQueuesHoldingPackets_burstsInterleaveFrameByFrame() {
    Machine m = TestMachines.machine(7, 8);
    NicLink link = link(m, MTU9000);
    Packet.Pool pool = new Packet.Pool(4);
    int tso = 7 * 8948;
    link.enqueue(packet(pool, 0, tso), 0); // alone on the wire: whole
    link.enqueue(packet(pool, 0, tso), 0);
    link.enqueue(packet(pool, 1, tso), 1); // the worker moved: CPU 1's queue
    m.sim().runUntil(10_000_000);
    assertThat(link.interleavedFrames).isEqualTo(14); // the second packet of each queue, 7 frames each
    assertThat(link.peer().frames()).isEqualTo(21);
  }

  @Test
  void withoutAtr_oneFifo_packetsWhole_rss() {
    Machine m = TestMachines.machine(7, 8);
    NicLink link = link(m, MTU9000.withHostAtr(false));
    Packet.Pool pool = new Packet.Pool(4);
    int tso = 7 * 8948;
    link.enqueue(packet(pool, 0, tso), 0);
    link.enqueue(packet(pool, 0, tso), 0);
    link.enqueue(packet(pool, 1, tso), 1);
    m.sim().runUntil(10_000_000);
    assertThat(link.interleavedFrames).isZero();
    assertThat(link.flowDirector().receiveQueue(1)).isEqualTo(Math.floorMod(0x9E3779B1, link.queues()));
  }

  /**
   * A numbered packet (iperf recovery 3.0) the full qdisc drops sends no loss report: the sender
   * hears of it from the peer's ACKs, whose cumulative ACK stops at the hole and whose SACK block
   * covers the data after it (3.0.27 tcp_input.c tcp_data_queue / tcp_sack_new_ofo_skb).
   */
  @Test
  void numberedDrop_reportsNothing_thePeersAcksShowTheHole() {
    Machine m = TestMachines.machine(7, 8);
    VhostNetConfig config = MTU9000.withHostAtr(false);
    NicLink link = new NicLink(m.sim(), m.host(), config, new Packet.Pool(16),
        new VhostNet("eth0", config, VhostNetCosts.ESTIMATES).stats);
    ArrayDeque<Packet> received = new ArrayDeque<>();
    for (int q = 0; q < link.queues(); q++) {
      link.receiveQueue(q, received, Program.named("irq").build());
    }
    Packet.Pool pool = new Packet.Pool(4);
    int mss = config.mss();
    int n = config.txQueueLen() + 2; // the last two find the qdisc full
    for (int i = 0; i < n; i++) {
      Packet p = packet(pool, 0, mss);
      p.seq = (long) i * mss;
      link.enqueue(p, 0);
    }
    m.sim().runUntil(50_000_000);
    Packet p = packet(pool, 0, mss);
    p.seq = (long) n * mss; // data after the hole
    link.enqueue(p, 0);
    m.sim().runUntil(100_000_000);
    assertThat(received).isNotEmpty();
    assertThat(received).allMatch(a -> a.lost == 0);
    Packet lastAck = received.peekLast();
    assertThat(lastAck.ackSeq).isEqualTo((long) (n - 2) * mss);
    assertThat(lastAck.sacks).isEqualTo(1);
    assertThat(lastAck.sack[0]).isEqualTo((long) n * mss);
  }
}

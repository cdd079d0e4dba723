package org.lockvisor.workloads.iperf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.lockvisor.devices.testing.TestMachines.MS;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.locking.spi.KernelLocks;
import org.lockvisor.core.plugin.BoundOptions;
import org.lockvisor.arch.spi.ArchCosts;
import org.lockvisor.devices.spi.DeviceContext;
import org.lockvisor.devices.testing.TestLocks;
import org.lockvisor.devices.testing.TestMachines;
import org.lockvisor.devices.vhostnet.VhostNet;
import org.lockvisor.devices.vhostnet.VhostNetConfig;
import org.lockvisor.devices.vhostnet.VhostNetCosts;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Vm;
import org.lockvisor.workloads.spi.WorkloadContext;

/**
 * iperf over vhost-net: the link is the bottleneck when the window allows (flat at line rate
 * for 1 or many streams), the window is when it does not (throughput ≈ window / RTT, ACK-clocked),
 * and the sender's TSO sizing and loss response follow tcp_output.c / tcp_input.c.
 */
class IperfWorkloadTest {

  private static final class Run {
    final Machine m;
    final VhostNet dev;
    final IperfWorkload iperf;

    Run(VhostNetConfig net, IperfConfig cfg) {
      m = TestMachines.machine(7, 8);
      Vm vm = TestMachines.vm(m, 2);
      dev = new VhostNet("eth0", net, VhostNetCosts.ESTIMATES);
      dev.attach(DeviceContext.of("dev", BoundOptions.none("test device"), org.lockvisor.devices.testing.TestMachines.X86_COSTS, new TestLocks(60), vm));
      iperf = new IperfWorkload("iperf", cfg, IperfCosts.ESTIMATES);
      iperf.start(WorkloadContext.of("iperf", BoundOptions.none("workload iperf"),
          org.lockvisor.devices.testing.TestMachines.X86_COSTS, KernelLocks.NONE, vm, Map.of(dev.name(), dev)));
      m.sim().setEventBudget(100_000_000);
    }

    Run run(long warmMs, long measureMs) {
      m.sim().runUntil(warmMs * MS);
      dev.resetStats();
      iperf.resetStats();
      m.sim().runUntil((warmMs + measureMs) * MS);
      return this;
    }
  }

  @Test
  void oneStream_fillsTenGigabitLink() {
    Run r = new Run(VhostNetConfig.defaults(), IperfConfig.defaults(1)).run(30, 40);
    assertThat(r.iperf.throughputGbps()).isBetween(9.0, 1448.0 / 1538 * 10 + 0.01);
    assertThat(r.iperf.figures().get("mean_segment_bytes").doubleValue()).isGreaterThan(30_000);
  }

  @Test
  void manyStreams_shareTheLinkAtTheSameRate() {
    Run r = new Run(VhostNetConfig.defaults(), IperfConfig.defaults(32)).run(60, 40);
    assertThat(r.iperf.throughputGbps()).isBetween(9.0, 1448.0 / 1538 * 10 + 0.01);
  }

  @Test
  void smallWindow_longRtt_isWindowLimitedByAcks() {
    // 64 KiB of window over a 1 ms round trip: at most ~0.52 Gbit/s whatever the link
    VhostNetConfig slow = new VhostNetConfig(VhostNetConfig.WorkQueue.WAKE_OUTSIDE_LOCK, 256, true, 10_000, 1500, true,
        1000, 1_000_000, 17, 0x80000, 0, 0, -1, 16, 125_000, 64, VhostNetConfig.TunRead.V3_0,
        VhostNetConfig.IrqfdInject.KWORKER, true, VhostNetConfig.RX_DESCRIPTORS_DEFAULT);
    IperfConfig cfg = new IperfConfig(1, 128 * 1024, 4 << 20, 64 * 1024, 10, 3, "");
    Run r = new Run(slow, cfg).run(30, 50);
    assertThat(r.iperf.throughputGbps()).isBetween(0.2, 64 * 1024 * 8 / 1e6);
  }

  @Test
  void hostTop_showsTheVhostWorker() {
    Run r = new Run(VhostNetConfig.defaults(), IperfConfig.defaults(1)).run(20, 20);
    Map<String, Number> f = r.iperf.figures();
    assertThat(f).containsKey("top.vhost-vm0_percent");
    assertThat(f.get("top.vhost-vm0_percent").doubleValue()).isBetween(1.0, 100.0);
  }

  @Test
  void nextSegment_defersSmallWindowLimitedPackets_andNagleHoldsSubMssTails() {
    Run r = new Run(VhostNetConfig.defaults(), IperfConfig.defaults(1));
    IperfWorkload w = r.iperf;
    IperfWorkload.Stream s = w.streamForTest(0);
    s.backlog = 1 << 20;
    s.cwnd = 300_000;
    s.inflight = 0;
    assertThat(w.nextSegment(s)).isEqualTo(45 * 1448); // a full TSO packet
    s.inflight = 300_000 - 20 * 1448; // 29 KB free, less than cwnd / 3
    assertThat(w.nextSegment(s)).isZero();
    s.inflight = 300_000 - 80 * 1448; // more than cwnd / 3 free
    assertThat(w.nextSegment(s)).isEqualTo(45 * 1448);
    s.backlog = 500; // a sub-MSS tail with data in flight: Nagle
    assertThat(w.nextSegment(s)).isZero();
    s.inflight = 0;
    assertThat(w.nextSegment(s)).isEqualTo(500);
  }

  @Test
  void onAck_simpleRecovery_lossHalvesCwndOncePerWindow_andResendsTheBytes() {
    Run r = new Run(VhostNetConfig.defaults(), IperfConfig.defaults(1).withRecovery(IperfConfig.Recovery.SIMPLE));
    IperfWorkload w = r.iperf;
    IperfWorkload.Stream s = w.streamForTest(0);
    s.cwnd = 400_000;
    s.ssthresh = 100_000;
    s.sndNxt = 400_000;
    s.inflight = 400_000;
    s.backlog = 0;
    w.onAck(s, 0, 60_000);
    assertThat(s.cwnd).isEqualTo(200_000);
    assertThat(s.backlog).isEqualTo(60_000);
    w.onAck(s, 0, 60_000); // same window: no second reduction
    assertThat(s.cwnd).isEqualTo(200_000);
    assertThat(s.inflight).isEqualTo(280_000);
  }

  /** 3.0.27 tcp_output.c tcp_tso_should_defer: "if (icsk->icsk_ca_state != TCP_CA_Open) goto send_now". */
  @Test
  void tsoDeferral_followsTheCaState_deferredInOpen_sentInRecovery() {
    Run r = new Run(VhostNetConfig.defaults(), IperfConfig.defaults(1).withRecovery(IperfConfig.Recovery.V3_0));
    IperfWorkload w = r.iperf;
    IperfWorkload.Stream s = w.streamForTest(0);
    SackSender tcp = s.tcp;
    s.backlog = 1 << 20;
    tcp.cc.cwnd = 200;
    tcp.sendNew(190 * 1448, 0); // 10 segments free, less than cwnd / 3: deferred while Open
    assertThat(IperfWorkload.inRecovery(s)).isFalse();
    assertThat(w.nextSegment(s)).isZero();
    w.onAck3(s, 0, new long[] {1448, 6 * 1448}, 1); // the head lost, five segments SACKed beyond it
    assertThat(IperfWorkload.inRecovery(s)).isTrue();
    s.xmitRetrans = false; // new data only: the retransmission is the next test's
    assertThat(w.nextSegment(s)).isPositive().isLessThan(10 * 1448);
    IperfWorkload simpleWorkload = new Run(VhostNetConfig.defaults(),
        IperfConfig.defaults(1).withRecovery(IperfConfig.Recovery.SIMPLE)).iperf;
    IperfWorkload.Stream simple = simpleWorkload.streamForTest(0);
    simple.backlog = s.backlog;
    simple.cwnd = 200 * 1448;
    simple.inflight = 190 * 1448;
    simple.sndNxt = 1_000_000;
    simple.recover = simple.sndNxt;
    simple.resolved = 500_000;
    assertThat(simpleWorkload.nextSegment(simple)).isZero(); // the simplification defers in any state
  }

  /**
   * 3.0.27 tcp_output.c tcp_retransmit_skb: "if (skb->len > cur_mss) tcp_fragment(sk, skb, cur_mss,
   * cur_mss)"; the sender learns of the loss from the peer's SACK blocks, not from the drop.
   */
  @Test
  void loss_isRetransmittedOneMssAtATime_fromTheSackBlocks() {
    Run r = new Run(VhostNetConfig.defaults(), IperfConfig.defaults(1).withRecovery(IperfConfig.Recovery.V3_0));
    IperfWorkload w = r.iperf;
    IperfWorkload.Stream s = w.streamForTest(0);
    s.tcp.cc.cwnd = 100;
    s.backlog = 1 << 20;
    for (int i = 0; i < 2; i++) {
      s.seg = w.nextSegment(s);
      assertThat(s.seg).isEqualTo(45 * 1448); // a whole TSO packet of new data
      w.sent3(s);
    }
    assertThat(s.segRetrans).isFalse();
    w.onAck3(s, 0, new long[] {45 * 1448, 50 * 1448}, 1); // the first packet was dropped whole
    assertThat(IperfWorkload.inRecovery(s)).isTrue();
    assertThat(w.nextSegment(s)).isEqualTo(1448); // one MSS of the lost packet, not a TSO burst
    assertThat(s.segRetrans).isTrue();
    assertThat(s.segSeq).isZero();
    long backlog = s.backlog;
    w.sent3(s);
    assertThat(s.backlog).isEqualTo(backlog); // a retransmission is not new data
    assertThat(s.tcp.inFlight()).isLessThanOrEqualTo(s.tcp.cwnd());
  }

  @Test
  void factory_isStrict() {
    assertThatThrownBy(() -> IperfFactory.config(Map.of("stream", "4")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("did you mean [streams]");
    assertThat(IperfFactory.config(Map.of("streams", "64")).streams()).isEqualTo(64);
  }
}

package org.lockvisor.devices.vhostnet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.lockvisor.devices.testing.TestMachines.MS;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.lockvisor.core.plugin.BoundOptions;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.devices.spi.DeviceContext;
import org.lockvisor.devices.testing.TestLocks;
import org.lockvisor.devices.testing.TestMachines;
import org.lockvisor.devices.vhostnet.WorkLockAcquirers.Acquirer;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Ops;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Vm;

/**
 * The guest-receive direction's host side, each property derived from the 3.0.27 sources:
 * dev_gro_receive holds at most MAX_GRO_SKBS = 8 flows per NAPI context and passes a ninth flow's
 * frame up unmerged (net/core/dev.c); ixgbe's ATR points a flow's receive filter at the queue of
 * the CPU that transmitted for it, sampling a flow's first packet and every 20th on a ring
 * (drivers/net/ixgbe/ixgbe_main.c ixgbe_atr, ixgbe_select_queue, ixgbe_sw_init); vhost_work_queue
 * takes work_lock on every call, whether the work is queued already or not (drivers/vhost/vhost.c).
 */
class GuestReceiveTest {
  private static final VhostNetConfig MTU9000 = VhostNetConfig.defaults().withMtu(9000);

  private static GuestReceive receive(Simulation sim, int streams, int queues) {
    return new GuestReceive(sim, null, MTU9000, null, new Packet.Pool(16), streams, 4 << 20, queues,
        new FlowDirector(MTU9000.hostAtr(), queues));
  }

  @Test
  void nineFlowsInterleavedInOnePoll_theNinthFlowsFramesPassUnmerged() {
    GuestReceive rx = receive(new Simulation(1), 9, 1);
    int mss = MTU9000.mss();
    for (int round = 0; round < 4; round++) {
      for (int f = 0; f < 9; f++) {
        rx.frameForTest(0, f, mss);
      }
    }
    int taken = rx.poll(0, 64); // 36 frames: fewer than the budget, so NAPI completes and GRO flushes
    assertThat(taken).isEqualTo(36);
    List<int[]> skbs = new ArrayList<>();
    Packet p;
    while ((p = rx.ready[0].poll()) != null) {
      skbs.add(new int[] {p.flow, p.bytes});
    }
    // flows 0-7 were held: one skb of their 4 frames each; flow 8 met a full GRO list every time
    assertThat(skbs).filteredOn(s -> s[0] < 8).hasSize(8).allSatisfy(s -> assertThat(s[1]).isEqualTo(4 * mss));
    assertThat(skbs).filteredOn(s -> s[0] == 8).hasSize(4).allSatisfy(s -> assertThat(s[1]).isEqualTo(mss));
    assertThat(rx.unmergedFrames).isEqualTo(4);
  }

  @Test
  void eightFlowsInOnePoll_allMerged() {
    GuestReceive rx = receive(new Simulation(1), 8, 1);
    for (int round = 0; round < 4; round++) {
      for (int f = 0; f < 8; f++) {
        rx.frameForTest(0, f, MTU9000.mss());
      }
    }
    rx.poll(0, 64);
    assertThat(rx.ready[0]).hasSize(8);
    assertThat(rx.unmergedFrames).isZero();
  }

  @Test
  void atr_steersAFlowsReceiveQueueToTheCpuThatTransmittedForIt() {
    GuestReceive rx = receive(new Simulation(1), 4, 16);
    int rss = rx.queueOf(2); // before any transmit: RSS
    rx.ackFromGuest(2, 100, 5); // the flow's first packet is always sampled
    assertThat(rx.queueOf(2)).isEqualTo(5);
    for (int i = 0; i < FlowDirector.ATR_SAMPLE_RATE - 1; i++) {
      rx.ackFromGuest(2, 100, 3); // ring 3 counts 19 packets: no sample yet
      assertThat(rx.queueOf(2)).as("after %s packets on ring 3", i + 1).isEqualTo(5);
    }
    rx.ackFromGuest(2, 100, 3); // the 20th packet on ring 3 is sampled
    assertThat(rx.queueOf(2)).isEqualTo(3);
    rx.ackFromGuest(1, 100, 19); // CPU 19 of a 16-queue NIC: ixgbe_select_queue folds it to queue 3
    assertThat(rx.queueOf(1)).isEqualTo(3);
    assertThat(rss).isBetween(0, 15);
  }

  @Test
  void vhostWorkQueue_takesWorkLockOnEveryCall_queuedOrNot() {
    Machine m = TestMachines.machine(7, 6);
    Vm vm = TestMachines.vm(m, 1);
    VhostNet dev = new VhostNet("eth0",
        VhostNetConfig.defaults().withWorkQueue(VhostNetConfig.WorkQueue.WAKE_INSIDE_LOCK), VhostNetCosts.ESTIMATES);
    dev.attach(DeviceContext.of("dev", BoundOptions.none("test device"), TestMachines.X86_COSTS, new TestLocks(60), vm));
    long[] calls = {0};
    // two calls back to back with interrupts off: the second finds the work queued (the worker cannot
    // have run in between) and must still take the lock
    Program twice = Program.interruptHandler("softirq").op(Ops.irqDisable())
        .run(t -> calls[0] += 2)
        .call(dev.txWorkQueuePath(Acquirer.SOFTIRQ)).call(dev.txWorkQueuePath(Acquirer.SOFTIRQ))
        .op(Ops.irqEnable()).build();
    for (long t0 = MS; t0 < 10 * MS; t0 += 200_000) {
      m.sim().scheduleAt(t0, (k, a) -> m.host().cpu(4).raiseInterrupt(twice), 0, 0);
    }
    m.sim().setEventBudget(10_000_000);
    m.sim().runUntil(MS / 2);
    dev.resetStats();
    m.sim().runUntil(10 * MS);
    assertThat(calls[0]).isGreaterThan(80);
    assertThat(dev.workLockAcquirers().acquisitions(Acquirer.SOFTIRQ)).isEqualTo(calls[0]);
    // only the first call of each pair found the work unqueued and woke the worker
    assertThat(dev.stats().get("worker_wakes_issued").longValue()).isEqualTo(calls[0] / 2);
  }
}

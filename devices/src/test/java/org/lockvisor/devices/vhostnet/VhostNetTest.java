package org.lockvisor.devices.vhostnet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.lockvisor.devices.testing.TestMachines.MS;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.core.plugin.BoundOptions;
import org.lockvisor.arch.spi.ArchCosts;
import org.lockvisor.devices.spi.DeviceContext;
import org.lockvisor.devices.testing.TestLocks;
import org.lockvisor.devices.testing.TestMachines;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Ops;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Vm;

/**
 * vhost-net device: the guest TX path reaches the wire at no more than the line rate, EVENT_IDX
 * suppresses kicks, the peer ACKs every GRO skb of a NAPI poll, and the work-queue variants differ exactly in
 * whether try_to_wake_up runs under work_lock — which, with wakers hammering, makes the worker
 * spin on work_lock (positive) and does not once the wake moves out (negative).
 */
class VhostNetTest {

  /** A guest sender: {@code senders} tasks transmitting {@code bytes}-byte packets back to back. */
  private static VhostNet sender(Machine m, Vm vm, VhostNetConfig config, int senders, int bytes) {
    VhostNet dev = new VhostNet("eth0", config, VhostNetCosts.ESTIMATES);
    dev.attach(DeviceContext.of("dev", BoundOptions.none("test device"), org.lockvisor.devices.testing.TestMachines.X86_COSTS, new TestLocks(60), vm));
    long[] acked = new long[1];
    dev.setProtocol(() -> Program.named("tcp_v4_rcv").run(t -> acked[0] += dev.rxAcked(t)).build());
    Program xmit = dev.xmitPath(t -> 0, t -> bytes);
    Program loop = Program.named("sender").loopWhile(t -> true,
        Program.named("send").work(5_000, "tcp_transmit_skb").call(xmit).build()).build();
    for (int i = 0; i < senders; i++) {
      vm.guest().spawn("sender" + i, loop);
    }
    return dev;
  }

  @Test
  void txPath_saturatesTheLinkAtLineRate_andKicksAreSuppressed() {
    Machine m = TestMachines.machine(1, 6);
    Vm vm = TestMachines.vm(m, 2);
    VhostNet dev = sender(m, vm, VhostNetConfig.defaults().withLineRateMbps(1000).withTxQueueLen(100_000), 2, 60_000);
    m.sim().setEventBudget(50_000_000);
    m.sim().runUntil(20 * MS);
    dev.resetStats();
    m.sim().runUntil(70 * MS);
    Map<String, Number> s = dev.stats();
    double gbps = s.get("throughput_gbps").doubleValue();
    // 1448-byte payload in 1538 wire bytes per frame: the payload rate is 94 % of 1 Gbit/s at most
    assertThat(gbps).isBetween(0.90, 1448.0 / 1538 + 1e-3);
    // the worker never catches up with the flooding senders, so EVENT_IDX suppresses every kick
    assertThat(s.get("txq.kicks_suppressed").longValue()).isGreaterThan(10 * s.get("txq.kicks").longValue());
    // one flow at 1 Gbit/s: each peer interrupt (at most one per 125 us of moderation) finds
    // ~11 frames of it, fewer than MAX_SKB_FRAGS, so GRO makes one skb and the peer one ACK per
    // interrupt: 50 ms / 125 us = 400 ACKs
    double chunks = 50 * MS / 125_000.0;
    assertThat(s.get("peer.acks").doubleValue()).isBetween(0.9 * chunks, 1.1 * chunks);
    assertThat(s.get("rx_packets").doubleValue()).isBetween(0.9 * chunks, 1.1 * chunks);
  }

  @Test
  void qdisc_full_dropsAndReportsLoss() {
    Machine m = TestMachines.machine(2, 6);
    Vm vm = TestMachines.vm(m, 2);
    VhostNet dev = sender(m, vm, VhostNetConfig.defaults().withLineRateMbps(1000).withTxQueueLen(4), 2, 60_000);
    m.sim().setEventBudget(50_000_000);
    m.sim().runUntil(30 * MS);
    assertThat(dev.stats().get("qdisc_drops").longValue()).isPositive();
  }

  /** Host wakers calling vhost_work_queue back to back on {@code wakers} host CPUs. */
  private static VhostNet hammered(VhostNetConfig.WorkQueue variant, int wakers) {
    Machine m = TestMachines.machine(3, 2 + wakers + 2);
    Vm vm = TestMachines.vm(m, 1);
    VhostNet dev = new VhostNet("eth0", VhostNetConfig.defaults().withWorkQueue(variant), VhostNetCosts.ESTIMATES);
    dev.attach(DeviceContext.of("dev", BoundOptions.none("test device"), org.lockvisor.devices.testing.TestMachines.X86_COSTS, new TestLocks(60), vm));
    Program waker = Program.named("waker").loopWhile(t -> true, Program.named("softirq")
        .work(300, "netif_receive_skb").op(Ops.irqDisable()).call(dev.txWorkQueuePath(WorkLockAcquirers.Acquirer.SOFTIRQ)).op(Ops.irqEnable()).build())
        .build();
    for (int i = 0; i < wakers; i++) {
      m.host().spawn("waker" + i, waker, 2 + i);
    }
    m.sim().setEventBudget(50_000_000);
    m.sim().runUntil(5 * MS);
    dev.resetStats();
    m.sim().runUntil(25 * MS);
    return dev;
  }

  @Test
  void wakeInsideLock_workerSpinsOnWorkLockWhileWakersRunTtwu() {
    // Wakers that find the work unqueued add it and wake the (running) worker under work_lock; the
    // worker coming back to spin_lock_irq(work_lock) waits out their try_to_wake_up.
    VhostNet inside = hammered(VhostNetConfig.WorkQueue.WAKE_INSIDE_LOCK, 4);
    Map<String, Number> s = inside.stats();
    assertThat(s.get("worker_wakes_under_work_lock").longValue()).isEqualTo(s.get("worker_wakes_issued").longValue())
        .isPositive();
    assertThat(inside.workerWorkLockNs()).isGreaterThan(inside.workerCpuNs() / 10);
  }

  @Test
  void wakeOutsideLock_workerSpinsLessThanInside() {
    VhostNet inside = hammered(VhostNetConfig.WorkQueue.WAKE_INSIDE_LOCK, 4);
    VhostNet outside = hammered(VhostNetConfig.WorkQueue.WAKE_OUTSIDE_LOCK, 4);
    assertThat(outside.stats().get("worker_wakes_under_work_lock").longValue()).isZero();
    assertThat(outside.workerWorkLockNs()).isLessThan(inside.workerWorkLockNs());
    assertThat(outside.stats().get("work_lock.wait_total_ns").longValue())
        .isLessThan(inside.stats().get("work_lock.wait_total_ns").longValue());
  }

  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.EnumSource(VhostNetConfig.WorkQueue.class)
  void sleepingWorker_recordsWhatItWaitsFor_soTheLostWakeupDetectorSeesIt(VhostNetConfig.WorkQueue variant) {
    // One slow sender: the worker drains each kick and goes back to sleep in schedule().
    Machine m = TestMachines.machine(4, 6);
    Vm vm = TestMachines.vm(m, 1);
    VhostNet dev = new VhostNet("eth0", VhostNetConfig.defaults().withWorkQueue(variant), VhostNetCosts.ESTIMATES);
    dev.attach(DeviceContext.of("dev", BoundOptions.none("test device"), org.lockvisor.devices.testing.TestMachines.X86_COSTS, new TestLocks(60), vm));
    dev.setProtocol(() -> Program.named("tcp_v4_rcv").run(t -> dev.rxAcked(t)).build());
    Program xmit = dev.xmitPath(t -> 0, t -> 1_500);
    vm.guest().spawn("sender", Program.named("sender").loopWhile(t -> true,
        Program.named("send").work(200_000, "tcp_transmit_skb").call(xmit).build()).build());
    m.sim().setEventBudget(50_000_000);
    int asleep = 0;
    int running = 0;
    for (long now = 1_000_000; now < 20 * MS; now += 997) {
      m.sim().runUntil(now);
      org.lockvisor.machine.Task w = dev.worker();
      if (w.state() == org.lockvisor.machine.TaskState.INTERRUPTIBLE && !w.onRq() && !w.onCpu()) {
        asleep++;
        assertThat(w.blockedOn()).as("sleeping worker at t=%d", now).isNotNull();
        assertThat(w.blockedCondition()).isNotNull();
      } else if (w.onCpu() && w.blockedOn() == null) {
        running++;
      }
    }
    // (in this small machine the worker shares its CPU with the vCPU thread and waits on the
    // runqueue most of the time; it still sleeps between kicks)
    assertThat(asleep).isGreaterThan(5);
    assertThat(running).isPositive();
    assertThat(dev.stats().get("handle_tx_runs").longValue()).isPositive();
  }

  @Test
  void llist_hasNoWorkLock() {
    VhostNet llist = hammered(VhostNetConfig.WorkQueue.LLIST, 4);
    assertThat(llist.workLock()).isNull();
    assertThat(llist.workerWorkLockNs()).isZero();
    assertThat(llist.stats().get("handle_tx_runs").longValue()).isPositive();
  }

  @Test
  void factory_rejectsUnknownOptionAndBadVariant() {
    assertThatThrownBy(() -> VhostNetFactory.config(Map.of("work-queu", "llist")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("did you mean [work-queue]");
    assertThatThrownBy(() -> VhostNetFactory.config(Map.of("work-queue", "inside")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("[inside]");
    assertThat(VhostNetFactory.config(Map.of("work-queue", "wake-inside-lock")).workQueue())
        .isEqualTo(VhostNetConfig.WorkQueue.WAKE_INSIDE_LOCK);
  }

  @Test
  void config_mssAndFrameOverhead_followMtuAndTimestamps() {
    VhostNetConfig c = VhostNetConfig.defaults();
    assertThat(c.mss()).isEqualTo(1448);
    assertThat(c.mss() + c.frameOverhead()).isEqualTo(1538);
  }
}

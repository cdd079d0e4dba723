package org.lockvisor.devices.vhostnet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.lockvisor.devices.testing.TestMachines.MS;

import org.junit.jupiter.api.Test;
import org.lockvisor.devices.testing.TestMachines;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Ops;
import org.lockvisor.machine.Program;
import org.lockvisor.scheduler.builtin.CfsScheduler;
import org.lockvisor.core.sim.Simulation;

/**
 * A receive storm on one host CPU, against the 3.0.27 bounds: net_rx_action stops after {@code
 * netdev_budget} = 300 frames (net/core/dev.c) and re-raises NET_RX_SOFTIRQ; __do_softirq runs at
 * most MAX_SOFTIRQ_RESTART = 10 rounds and then wakes ksoftirqd (kernel/softirq.c), an ordinary
 * CFS thread; so a thread on that CPU keeps running while the backlog drains.
 */
class SoftirqBudgetTest {
  @Test
  void storm_defersToKsoftirqdAfterTheRestartLimit_andACfsThreadStillRuns() {
    Machine m = new Machine(new Simulation(3)); // a 3.0 host: CFS at its defaults
    m.createHost("host", 2, TestMachines.hostConfig(), CfsScheduler.withDefaults());
    VhostNetConfig config = VhostNetConfig.defaults().withMtu(1500);
    Packet.Pool pool = new Packet.Pool(16);
    GuestReceive rx = new GuestReceive(m.sim(), m.host(), config, null, pool, 1, 1 << 20, 1,
        new FlowDirector(false, 1));
    Program deliverOne = Program.named("netif_receive_skb")
        .op(Ops.work(t -> {
          pool.release(rx.ready[0].poll());
          return 1_000; // the stack per skb: 1 us
        }, "br_handle_frame"))
        .build();
    rx.buildQueue(0, VhostNetCosts.ESTIMATES, deliverOne);
    int backlog = 20_000;
    for (int i = 0; i < backlog; i++) {
      rx.frameForTest(0, i % 100, config.mss()); // 100 flows: most frames pass GRO unmerged
    }
    long[] loopsWhileBacklog = {0};
    m.host().spawn("iperf", Program.named("iperf").op(Ops.loopWhile(t -> true, Program.named("loop")
        .userWork(10_000, "user")
        .run(t -> {
          if (rx.frames < backlog) {
            loopsWhileBacklog[0]++;
          }
        })
        .build())).build(), 0);
    m.sim().setEventBudget(5_000_000);
    m.sim().scheduleAt(MS, (k, a) -> rx.onEvent(2, 0), 0, 0); // queue 0's interrupt on CPU 0
    m.sim().runUntil(80 * MS);

    assertThat(rx.frames).isEqualTo(backlog);
    // the interrupt's __do_softirq: 10 rounds of net_rx_action, each cut at the budget, then ksoftirqd
    assertThat(rx.softirqs.ksoftirqdWakes).isEqualTo(1);
    assertThat(rx.softirqs.timeSqueezes).isGreaterThanOrEqualTo(backlog / (5 * 64) - 1);
    assertThat(rx.softirqs.ksoftirqdRuns).isGreaterThan(1);
    // the CFS thread shared the CPU with ksoftirqd while the backlog drained
    assertThat(loopsWhileBacklog[0]).isGreaterThan(100);
  }
}

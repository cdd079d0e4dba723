package org.lockvisor.devices.vhostnet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.lockvisor.devices.testing.TestMachines.MS;

import org.junit.jupiter.api.Test;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.devices.testing.TestMachines;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Ops;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Task;
import org.lockvisor.scheduler.builtin.CfsScheduler;

/**
 * A NET_RX softirq left pending on a CPU runs at the exit of the next hard interrupt there, the
 * timer tick included (kernel/softirq.c 3.0.27 {@code irq_exit}: {@code if (!in_interrupt() &&
 * local_softirq_pending()) invoke_softirq();}; arch/x86/kernel/apic/apic.c {@code
 * smp_apic_timer_interrupt}: {@code irq_enter(); local_apic_timer_interrupt(); irq_exit();}), on
 * the stack of the task the tick interrupted — not only when ksoftirqd gets the CPU.
 */
class NetRxIrqExitTest {
  @Test
  void theTicksExitRunsAPendingNetRxSoftirq_onTheInterruptedTask() {
    Machine m = new Machine(new Simulation(5));
    m.createHost("host", 2, TestMachines.hostConfig(), CfsScheduler.withDefaults()); // 4 ms tick
    VhostNetConfig config = VhostNetConfig.defaults().withMtu(1500);
    Packet.Pool pool = new Packet.Pool(16);
    GuestReceive rx = new GuestReceive(m.sim(), m.host(), config, null, pool, 1, 1 << 20, 1,
        new FlowDirector(false, 1));
    Task[] deliveredOn = {null};
    Program deliverOne = Program.named("netif_receive_skb")
        .op(Ops.work(t -> {
          deliveredOn[0] = t;
          pool.release(rx.ready[0].poll());
          return 1_000;
        }, "br_handle_frame"))
        .build();
    rx.buildQueue(0, VhostNetCosts.ESTIMATES, deliverOne);
    Task busy = m.host().spawn("iperf", Program.named("iperf").op(Ops.loopWhile(t -> true, Program.named("loop")
        .userWork(10_000, "user").build())).build(), 0);
    m.sim().scheduleAt(MS, (k, a) -> {
      for (int i = 0; i < 100; i++) {
        rx.frameForTest(0, 0, config.mss());
      }
      rx.softirqs.deferForTest(0); // what a __do_softirq out of its 10 restarts leaves: NET_RX pending
    }, 0, 0);
    m.sim().runUntil(3 * MS); // no interrupt on CPU 0 yet, ksoftirqd not woken
    assertThat(rx.frames).isZero();
    assertThat(rx.softirqs.deferred(0)).isTrue();

    m.sim().runUntil(10 * MS); // CPU 0's tick (4 ms after the thread left idle) exits through irq_exit
    assertThat(rx.frames).isEqualTo(100);
    assertThat(rx.softirqs.irqExitRuns).isEqualTo(1);
    assertThat(rx.softirqs.ksoftirqdRuns).isZero();
    assertThat(deliveredOn[0]).as("the softirq ran on the task the tick interrupted").isSameAs(busy);
  }

  @Test
  void notWhileASoftirqRunsOnThatCpu_inInterrupt() {
    Machine m = new Machine(new Simulation(5));
    m.createHost("host", 1, TestMachines.hostConfig(), CfsScheduler.withDefaults());
    VhostNetConfig config = VhostNetConfig.defaults().withMtu(1500);
    Packet.Pool pool = new Packet.Pool(16);
    GuestReceive rx = new GuestReceive(m.sim(), m.host(), config, null, pool, 1, 1 << 20, 1,
        new FlowDirector(false, 1));
    rx.buildQueue(0, VhostNetCosts.ESTIMATES, Program.named("netif_receive_skb")
        .op(Ops.work(t -> {
          pool.release(rx.ready[0].poll());
          return 1_000;
        }, "br_handle_frame"))
        .build());
    // a queue's __do_softirq enters on CPU 0 (in_interrupt() from there); the irq_exit of an
    // interrupt taken meanwhile finds the CPU in a softirq and leaves the pending queue alone
    Program inSoftirq = rx.softirqs.install(0, Program.named("net_rx_action")
        .run(t -> {
          rx.softirqs.deferForTest(0);
          assertThat(rx.softirqs.onIrqExit(m.host().cpu(0))).isNull();
        })
        .build());
    assertThat(inSoftirq).isNotNull();
    m.host().spawn("t", Program.named("t").call(inSoftirq).build(), 0);
    m.sim().runUntil(MS);
    assertThat(rx.softirqs.deferred(0)).isTrue();
    // out of the softirq, the next irq_exit runs it
    assertThat(rx.softirqs.onIrqExit(m.host().cpu(0))).isNotNull();
    assertThat(rx.softirqs.deferred(0)).isFalse();
  }
}

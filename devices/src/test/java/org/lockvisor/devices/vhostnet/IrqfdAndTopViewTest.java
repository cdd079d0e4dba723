package org.lockvisor.devices.vhostnet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.lockvisor.devices.testing.TestMachines.MS;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.core.plugin.BoundOptions;
import org.lockvisor.devices.spi.DeviceContext;
import org.lockvisor.devices.testing.TestLocks;
import org.lockvisor.devices.testing.TestMachines;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Vm;

/**
 * irqfd injection (virt/kvm/eventfd.c): in 3.0 irqfd_wakeup only schedules the inject work and a
 * kworker runs it, outside the vhost worker's line in top; direct injection runs it in the
 * signaller. CONFIG_IRQ_TIME_ACCOUNTING takes the softirq netif_rx_ni runs in the worker's
 * context out of the worker's top figure.
 */
class IrqfdAndTopViewTest {

  private static Map<String, Number> run(VhostNetConfig config, boolean irqTime) {
    Machine m = TestMachines.machine(13, 6);
    m.host().setIrqTimeAccounting(irqTime);
    Vm vm = TestMachines.vm(m, 2);
    VhostNet dev = new VhostNet("eth0", config, VhostNetCosts.ESTIMATES);
    dev.attach(DeviceContext.of("dev", BoundOptions.none("test device"), TestMachines.X86_COSTS, new TestLocks(60), vm));
    dev.setProtocol(() -> Program.named("tcp_v4_rcv").run(t -> dev.rxAcked(t)).build());
    Program xmit = dev.xmitPath(t -> (int) (t.id() % 4), t -> 30_000);
    vm.guest().spawn("sender", Program.named("sender").loopWhile(t -> true,
        Program.named("send").work(5_000, "tcp_transmit_skb").call(xmit).build()).build());
    m.sim().setEventBudget(50_000_000);
    m.sim().runUntil(5 * MS);
    dev.resetStats();
    m.sim().runUntil(25 * MS);
    return dev.stats();
  }

  @Test
  void kworkerInjection_runsInTheKworker_directRunsInTheWorker() {
    Map<String, Number> kworker = run(VhostNetConfig.defaults(), false);
    Map<String, Number> direct =
        run(VhostNetConfig.defaults().withIrqfdInject(VhostNetConfig.IrqfdInject.DIRECT), false);

    assertThat(kworker.get("kworker_injects").longValue()).isPositive();
    assertThat(kworker.get("kworker_cpu_percent").doubleValue()).isPositive();
    assertThat(direct.get("kworker_injects").longValue()).isZero();
    assertThat(direct.get("kworker_cpu_percent").doubleValue()).isZero();
    // signals coalesce while the inject work is pending: never more injections than signals
    assertThat(kworker.get("kworker_injects").longValue())
        .isLessThanOrEqualTo(kworker.get("rx_signals").longValue() + kworker.get("tx_signals").longValue());
  }

  @Test
  void irqTimeAccounting_takesTheSoftirqOutOfTheWorkersTopFigure() {
    Map<String, Number> off = run(VhostNetConfig.defaults(), false);
    Map<String, Number> on = run(VhostNetConfig.defaults(), true);

    long softirq = off.get("worker_softirq_ns").longValue();
    assertThat(softirq).isPositive();
    // same event history (accounting only changes what top shows), so the difference is the
    // softirq and interrupt time in the worker's context
    assertThat(on.get("delivered_bytes")).isEqualTo(off.get("delivered_bytes"));
    assertThat(off.get("worker_cpu_ns").longValue() - on.get("worker_cpu_ns").longValue())
        .isEqualTo(softirq + off.get("worker_irq_ns").longValue());
  }
}

package org.lockvisor.machine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.machine.config.HypervisorConfig;
import org.lockvisor.machine.config.KernelConfig;
import org.lockvisor.scheduler.builtin.RoundRobinScheduler;

/**
 * The two-level machine: guest work progresses only while the vCPU thread runs in guest mode;
 * interrupts wait for interrupts to be enabled; spinning burns CPU charged to the spin symbol
 * and ends on the hand-off event.
 */
class MachineTest {
  private static final long MS = 1_000_000;

  private final Simulation sim = new Simulation(1);
  private final Machine machine = new Machine(sim);

  private Vm oneVcpuVm(Kernel host) {
    return machine.createVm("vm0", 1, KernelConfig.zeroCost(4 * MS), new RoundRobinScheduler(3 * MS),
        HypervisorConfig.zeroCost(), 0);
  }

  @Test
  void guestWork_vcpuAlone_finishesAfterExactlyItsDuration() {
    Kernel host = machine.createHost("host", 1, KernelConfig.zeroCost(4 * MS), new RoundRobinScheduler(300_000));
    Vm vm = oneVcpuVm(host);
    long[] done = {-1};
    vm.guest().spawn("worker", Program.named("main").work(MS, "compute").run(t -> done[0] = sim.now()).build());
    sim.runUntil(10 * MS);
    assertThat(done[0]).isEqualTo(MS);
  }

  @Test
  void guestWork_hostThreadSharesPcpu_finishesLaterByExactlyThePreemptedTime() {
    Kernel host = machine.createHost("host", 1, KernelConfig.zeroCost(4 * MS), new RoundRobinScheduler(300_000));
    Vm vm = oneVcpuVm(host);
    long[] done = {-1};
    Task hog = host.spawn("hog", Program.named("hog").userWork(50 * MS, "spin_user").build(), 0);
    vm.guest().spawn("worker", Program.named("main").work(MS, "compute").run(t -> {
      done[0] = sim.now();
      machine.syncAccounting();
      // with zero-cost switches, every ns the vCPU thread was off the pCPU went to the hog
      assertThat(done[0] - MS).isEqualTo(machine.account().threadTotal(hog.id()));
    }).build());
    sim.runUntil(20 * MS);
    assertThat(done[0]).isGreaterThan(MS + 250_000);
    VcpuTask v = vm.vcpus().get(0);
    assertThat(v.involuntarySwitches()).isPositive();
  }

  @Test
  void interrupt_raisedWhileDisabled_runsRightAfterIrqEnable() {
    Kernel host = machine.createHost("host", 1, KernelConfig.zeroCost(4 * MS), new RoundRobinScheduler(3 * MS));
    List<Long> handlerStarts = new ArrayList<>();
    long[] done = {-1};
    host.spawn("t", Program.named("main")
        .irqDisable().work(100, "critical").irqEnable().work(100, "after")
        .run(t -> done[0] = sim.now()).build(), 0);
    Program handler = Program.interruptHandler("irq").run(t -> handlerStarts.add(sim.now())).work(10, "handler").build();
    sim.schedule(50, (k, a) -> host.cpu(0).raiseInterrupt(handler), 0, 0);
    sim.runUntil(MS);
    assertThat(handlerStarts).containsExactly(100L);
    assertThat(done[0]).isEqualTo(210);
  }

  @Test
  void interrupt_enabled_preemptsWorkAndWorkResumesWithRemainder() {
    Kernel host = machine.createHost("host", 1, KernelConfig.zeroCost(4 * MS), new RoundRobinScheduler(3 * MS));
    long[] done = {-1};
    host.spawn("t", Program.named("main").work(100, "w").run(t -> done[0] = sim.now()).build(), 0);
    Program handler = Program.interruptHandler("irq").work(30, "handler").build();
    sim.schedule(40, (k, a) -> host.cpu(0).raiseInterrupt(handler), 0, 0);
    sim.runUntil(MS);
    assertThat(done[0]).isEqualTo(130);
  }

  @Test
  void spin_burnsCpuChargedToSpinSymbol_andStopsAtHandOff() {
    Kernel host = machine.createHost("host", 2, KernelConfig.zeroCost(4 * MS), new RoundRobinScheduler(3 * MS));
    boolean[] locked = {true};
    long[] acquired = {-1};
    Task[] spinner = new Task[1];
    spinner[0] = host.spawn("spinner", Program.named("lock_path")
        .op(Ops.spinUntil("native_queued_spin_lock_slowpath", t -> !locked[0], 0))
        .run(t -> acquired[0] = sim.now())
        .build(), 1);
    host.spawn("holder", Program.named("holder")
        .work(500, "critical_section")
        .run(t -> {
          locked[0] = false;
          spinner[0].poke(0);
        })
        .build(), 0);
    sim.runUntil(MS);
    machine.syncAccounting();
    assertThat(acquired[0]).isEqualTo(500);
    long spinNs = spinTime(spinner[0], "native_queued_spin_lock_slowpath");
    assertThat(spinNs).isEqualTo(500);
  }

  @Test
  void spin_budget_endsSpinWithTimeout() {
    Kernel host = machine.createHost("host", 1, KernelConfig.zeroCost(4 * MS), new RoundRobinScheduler(3 * MS));
    boolean[] timedOut = {false};
    long[] end = {-1};
    host.spawn("spinner", Program.named("p")
        .op(Ops.spinUntil("spin", t -> false, 700))
        .run(t -> {
          timedOut[0] = t.spinTimedOut();
          end[0] = sim.now();
        }).build(), 0);
    sim.runUntil(MS);
    assertThat(timedOut[0]).isTrue();
    assertThat(end[0]).isEqualTo(700);
  }

  @Test
  void sleepAndWake_wakeeRunsAfterWaker() {
    Kernel host = machine.createHost("host", 2, KernelConfig.zeroCost(4 * MS), new RoundRobinScheduler(3 * MS));
    boolean[] ready = {false};
    long[] woke = {-1};
    WaitQueue wq = new WaitQueue("wq");
    host.spawn("sleeper", Program.named("s").op(Ops.sleepUntil(wq, t -> ready[0])).run(t -> woke[0] = sim.now()).build(), 1);
    host.spawn("waker", Program.named("w").work(1000, "produce").run(t -> ready[0] = true).op(Ops.wakeOne(wq)).build(), 0);
    sim.runUntil(MS);
    assertThat(woke[0]).isEqualTo(1000);
  }

  private long spinTime(Task t, String symbol) {
    long[] sum = {0};
    machine.account().forEach((cpu, thread, stack, ns) -> {
      if (thread == t.id() && machine.symbols().name(machine.symbols().leaf(stack)).equals(symbol)) {
        sum[0] += ns;
      }
    });
    return sum[0];
  }
}

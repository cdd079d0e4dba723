package org.lockvisor.scheduler.builtin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.lockvisor.scheduler.builtin.SchedTestSupport.MS;
import static org.lockvisor.scheduler.builtin.SchedTestSupport.at;
import static org.lockvisor.scheduler.builtin.SchedTestSupport.cpuBound;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Op;
import org.lockvisor.machine.Ops;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Task;
import org.lockvisor.machine.Vm;
import org.lockvisor.machine.YieldStats;
import org.lockvisor.machine.config.HypervisorConfig;
import org.lockvisor.machine.config.KernelConfig;
import org.lockvisor.scheduler.builtin.SchedTestSupport.RunRecorder;

/**
 * PowerVM H_CONFER and H_PROD (arch/powerpc/lib/locks.c 4.8 {@code __spin_yield} confers to the
 * holder's processor): a conferred-to VP that is preempted runs next on the caller's processor,
 * ahead of the dispatcher's FIFO; a confer to a ceded VP does nothing; H_PROD makes a ceded VP
 * dispatchable.
 */
class ConferProdTest {
  private final Simulation sim = new Simulation(1);
  private final Machine machine = new Machine(sim);

  private record Lpar(Vm vm, Kernel host, RunRecorder rec) {}

  /** One processor, three VPs each entitled to a whole processor (never exhausted). */
  private Lpar lpar() {
    PowervmDispatchScheduler phyp = (PowervmDispatchScheduler) SchedulerContexts.create(new PowervmDispatchSchedulerFactory(), Map.of("entitlement", "0"));
    Kernel host = machine.createHost("phyp", 1, KernelConfig.zeroCost(MS), phyp);
    Vm vm = machine.createVm("lpar", 3, KernelConfig.zeroCost(10 * MS), CfsScheduler.withDefaults(),
        new HypervisorConfig(1_000, 1_000, 0, true), 0, 0, 0);
    RunRecorder rec = new RunRecorder(machine, host.cpu(0));
    machine.setTrace(rec);
    return new Lpar(vm, host, rec);
  }

  /** A guest path that makes H_CONFER to guest CPU {@code target} after 1 ms of work. */
  private static Program conferAfterWork(Vm[] vm, int target) {
    Program hostSide = Program.named("h_confer").op(new Op() {
      @Override
      public int execute(Task t, int phase) {
        if (phase == 0) {
          vm[0].confer(t, target);
          t.kernel().schedule(t.cpu(), false);
          return AGAIN;
        }
        return NEXT;
      }
    }).build();
    return Program.named("waiter")
        .work(MS, "spin")
        .op(Ops.vmExit("H_CONFER", hostSide))
        .loopWhile(t -> true, Program.named("w").work(MS, "after").build())
        .build();
  }

  @Test
  void confer_toPreemptedVpBehindAnother_dispatchesItNext() {
    Lpar l = lpar();
    Vm[] vm = {l.vm()};
    // every VP cedes at boot; at 2 ms the three wake in order 0, 1, 2
    at(machine, 2 * MS, () -> {
      l.vm().guest().spawn("waiter", conferAfterWork(vm, 2), 0);
      l.vm().guest().spawn("other", cpuBound("other"), 1);
      l.vm().guest().spawn("holder", cpuBound("holder"), 2);
    });
    sim.runUntil(6 * MS);

    List<SchedTestSupport.Run> runs = l.rec().runs().stream().filter(r -> r.start() >= 2 * MS).toList();
    // VP 0 runs first and confers; FIFO would run VP 1 next, the confer runs VP 2
    assertThat(runs.get(0).task()).isEqualTo(l.vm().vcpus().get(0));
    assertThat(runs.get(1).task()).isEqualTo(l.vm().vcpus().get(2));
    YieldStats s = l.vm().yieldStats();
    assertThat(s.get(YieldStats.Counter.CONFER_DIRECTED)).isEqualTo(1);
    assertThat(s.get(YieldStats.Counter.CONFER_DISPATCHED)).isEqualTo(1);
  }

  @Test
  void confer_toCededVp_doesNotDispatchIt() {
    Lpar l = lpar();
    Vm[] vm = {l.vm()};
    // guest CPU 2 has nothing to run: its VP cedes at boot and stays ceded
    at(machine, 2 * MS, () -> {
      l.vm().guest().spawn("waiter", conferAfterWork(vm, 2), 0);
      l.vm().guest().spawn("other", cpuBound("other"), 1);
    });
    sim.runUntil(6 * MS);

    YieldStats s = l.vm().yieldStats();
    assertThat(s.get(YieldStats.Counter.CONFER_TARGET_CEDED)).isEqualTo(1);
    assertThat(s.get(YieldStats.Counter.CONFER_DISPATCHED)).isZero();
  }

  @Test
  void prod_cededVp_becomesDispatchable() {
    Lpar l = lpar();
    boolean[] wasCeded = {false};
    at(machine, 2 * MS, () -> wasCeded[0] = l.vm().prod(1));
    sim.runUntil(4 * MS);

    assertThat(wasCeded[0]).isTrue();
    assertThat(l.rec().onCpu(l.vm().vcpus().get(1), 2 * MS, 4 * MS)).isPositive();
    assertThat(l.vm().yieldStats().get(YieldStats.Counter.PRODS)).isEqualTo(1);
  }
}

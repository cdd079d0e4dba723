package org.lockvisor.machine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Supplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.machine.config.HypervisorConfig;
import org.lockvisor.machine.config.KernelConfig;
import org.lockvisor.machine.config.TtwuQueueMode;
import org.lockvisor.machine.observe.MachineInvariants;
import org.lockvisor.scheduler.builtin.CfsSchedulerFactory;
import org.lockvisor.scheduler.builtin.PowervmDispatchSchedulerFactory;
import org.lockvisor.scheduler.builtin.RoundRobinSchedulerFactory;
import org.lockvisor.scheduler.builtin.SchedulerContexts;

/**
 * The built-in scheduling policies keep every machine invariant (runqueues hold exactly the
 * queued runnable tasks, physical CPU time fully charged, guest CPUs run exactly while their
 * vCPU thread is in guest mode) after every event, under random programs on an overcommitted
 * two-level machine with floating vCPUs and guest tasks; runs make progress and are
 * deterministic per seed.
 */
class SchedulerStressTest {
  private static final long US = 1_000;
  private static final long MS = 1_000_000;

  private static Supplier<Scheduler> policy(String name) {
    return switch (name) {
      case "cfs" -> () -> SchedulerContexts.create(new CfsSchedulerFactory(), Map.of());
      case "cfs-hrtick" -> () -> SchedulerContexts.create(new CfsSchedulerFactory(), Map.of("hrtick", "true", "scaling", "none"));
      case "powervm" -> () -> SchedulerContexts.create(new PowervmDispatchSchedulerFactory(), Map.of("entitlement", "1.0", "window", "2ms"));
      case "powervm-capped" -> () -> SchedulerContexts.create(new PowervmDispatchSchedulerFactory(), 
          Map.of("entitlement", "2.0", "window", "2ms", "capped", "true"));
      case "powervm-smt2" -> () -> SchedulerContexts.create(new PowervmDispatchSchedulerFactory(), 
          Map.of("entitlement", "1.0", "window", "2ms", "smt", "2"));
      case "round-robin" -> () -> SchedulerContexts.create(new RoundRobinSchedulerFactory(), Map.of());
      default -> throw new IllegalArgumentException(name);
    };
  }

  @ParameterizedTest(name = "host {0}, guest {1}, seed {2}")
  @CsvSource({
      "cfs, cfs, 1", "cfs, cfs, 2", "cfs-hrtick, cfs-hrtick, 3", "powervm, cfs, 4", "powervm-capped, cfs, 5",
      "powervm-smt2, cfs, 8",
      "round-robin, cfs, 6", "cfs, round-robin, 7"})
  void randomPrograms_builtinPolicies_keepInvariantsAndProgress(String hostPolicy, String guestPolicy, long seed) {
    // SMT gang dispatch: the host's CPUs are 2 cores of 2 threads, all of them vCPU threads
    boolean smt = hostPolicy.endsWith("smt2");
    Result a = run(policy(hostPolicy), policy(guestPolicy), seed, smt);
    Result b = run(policy(hostPolicy), policy(guestPolicy), seed, smt);
    assertThat(a.fingerprint()).as("same seed, same run").isEqualTo(b.fingerprint());
    assertThat(a.iterations()).as("every worker made progress").allMatch(n -> n > 3);
    assertThat(a.checks()).isPositive();
  }

  record Result(long fingerprint, List<Long> iterations, long checks) {}

  private Result run(Supplier<Scheduler> hostPolicy, Supplier<Scheduler> guestPolicy, long seed, boolean smt) {
    Simulation sim = new Simulation(seed);
    Machine m = new Machine(sim);
    KernelConfig hostCfg = new KernelConfig(MS, false, TtwuQueueMode.CROSS_LLC, 2, 1500, 5 * US, 100, 500, 1000, 300,
        false, 500);
    Kernel host = m.createHost("host", smt ? 4 : 3, hostCfg, hostPolicy.get());
    KernelConfig guestCfg = new KernelConfig(4 * MS, false, TtwuQueueMode.ANY_REMOTE, 4, 1500, 0, 100, 500, 1000, 2000,
        true, 500);
    Vm vm = m.createVm("vm0", 4, guestCfg, guestPolicy.get(), new HypervisorConfig(700, 1500, 20 * US));
    if (!smt) {
      host.spawn("hog", Program.named("hog").loopWhile(t -> true,
          Program.named("hog_body").userWork(400 * US, "hog").build()).build(), 1);
    }
    MachineInvariants invariants = new MachineInvariants(m).install();

    boolean[] lock = {false};
    List<Task> spinners = new ArrayList<>();
    int[] tokens = {0};
    WaitQueue wq = new WaitQueue("tokens");
    Op acquire = new Op() {
      @Override
      public int execute(Task t, int phase) {
        if (phase == 0) {
          t.irqSave();
          t.preemptDisable();
        }
        if (!lock[0]) {
          lock[0] = true;
          spinners.remove(t);
          return NEXT;
        }
        if (!spinners.contains(t)) {
          spinners.add(t);
        }
        t.startSpin(t.machine().symbols().symbol("_raw_spin_lock_irqsave"), s -> !lock[0], 0, null);
        return AGAIN;
      }
    };
    Op release = new Op() {
      @Override
      public int execute(Task t, int phase) {
        lock[0] = false;
        for (Task s : spinners) {
          s.poke(60);
        }
        t.preemptEnable();
        t.irqRestore();
        return NEXT;
      }
    };
    Program exitHandler = Program.named("handle_io").work(2 * US, "kernel_pio").build();
    Program irq = Program.interruptHandler("virtio_irq").work(1 * US, "vring_interrupt").build();
    List<long[]> counters = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      SplittableRandom r = sim.streams().get("worker" + i);
      long[] count = {0};
      counters.add(count);
      Program body = Program.named("body")
          .op(Ops.call(t -> switch (r.nextInt(7)) {
            case 0 -> Program.named("compute").work(1 + r.nextInt(50) * US, "compute").build();
            case 1 -> Program.named("user").userWork(1 + r.nextInt(3000) * US, "user").build();
            case 2 -> Program.named("critical").op(acquire).work(1 + r.nextInt(20) * US, "critical").op(release).build();
            case 3 -> Program.named("consume").op(Ops.sleepUntil(wq, x -> tokens[0] > 0)).run(x -> tokens[0]--).build();
            case 4 -> Program.named("produce").run(x -> tokens[0]++).op(Ops.wakeOne(wq)).build();
            case 5 -> Program.named("idle").op(Ops.sleepUntil(wq, x -> tokens[0] > 0)).run(x -> tokens[0]--).build();
            default -> Program.named("io").op(Ops.vmExit("IO", exitHandler)).op(Ops.raiseInterrupt(
                x -> vm.guest().cpu(r.nextInt(4)), irq)).build();
          }))
          .run(t -> count[0]++)
          .build();
      vm.guest().spawn("worker" + i, Program.named("main").loopWhile(t -> true, body).build());
    }
    vm.guest().spawn("producer", Program.named("producer").loopWhile(t -> true, Program.named("p")
        .work(300 * US, "produce").run(x -> tokens[0] += 2).op(Ops.wakeOne(wq)).op(Ops.wakeOne(wq))
        .userWork(200 * US, "think").build()).build());
    sim.runUntil(60 * MS);
    List<Long> it = new ArrayList<>();
    for (long[] c : counters) {
      it.add(c[0]);
    }
    return new Result(sim.fingerprint(), it, invariants.checks());
  }
}

package org.lockvisor.machine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.machine.config.HypervisorConfig;
import org.lockvisor.machine.config.KernelConfig;
import org.lockvisor.machine.config.TtwuQueueMode;
import org.lockvisor.machine.observe.MachineInvariants;
import org.lockvisor.scheduler.builtin.RoundRobinScheduler;

/**
 * Random programs (work, user work, a spinning test-and-set lock with interrupts off, sleeps and
 * wakeups on a wait queue, VM exits, interrupts) on an overcommitted two-level machine keep
 * every machine invariant after every event, make progress, and are deterministic per seed.
 */
class MachineStressTest {
  private static final long US = 1_000;
  private static final long MS = 1_000_000;

  @ParameterizedTest
  @ValueSource(longs = {1, 2, 3, 4, 5})
  void randomPrograms_overcommitted_keepInvariantsAndProgress(long seed) {
    Result a = run(seed);
    Result b = run(seed);
    assertThat(a.fingerprint).as("same seed, same run").isEqualTo(b.fingerprint);
    assertThat(a.iterations).as("every worker made progress").allMatch(n -> n > 3);
  }

  record Result(long fingerprint, List<Long> iterations) {}

  private Result run(long seed) {
    Simulation sim = new Simulation(seed);
    Machine m = new Machine(sim);
    KernelConfig hostCfg = new KernelConfig(4 * MS, false, TtwuQueueMode.ANY_REMOTE, 2, 1500, 5 * US, 100, 500, 1000, 300,
        false, 500);
    Kernel host = m.createHost("host", 2, hostCfg, new RoundRobinScheduler(3 * MS));
    KernelConfig guestCfg = new KernelConfig(4 * MS, false, TtwuQueueMode.ANY_REMOTE, 4, 1500, 0, 100, 500, 1000, 2000,
        true, 500);
    Vm vm = m.createVm("vm0", 4, guestCfg, new RoundRobinScheduler(3 * MS), new HypervisorConfig(700, 1500, 20 * US), 0, 1, 0, 1);
    host.spawn("hog", Program.named("hog").loopWhile(t -> true,
        Program.named("hog_body").userWork(400 * US, "hog").build()).build(), 1);
    new MachineInvariants(m).install();

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
          .op(Ops.call(t -> {
            int choice = r.nextInt(6);
            return switch (choice) {
              case 0 -> Program.named("compute").work(1 + r.nextInt(50) * US, "compute").build();
              case 1 -> Program.named("user").userWork(1 + r.nextInt(200) * US, "user").build();
              case 2 -> Program.named("critical").op(acquire).work(1 + r.nextInt(20) * US, "critical").op(release).build();
              case 3 -> Program.named("consume").op(Ops.sleepUntil(wq, x -> tokens[0] > 0)).run(x -> tokens[0]--).build();
              case 4 -> Program.named("produce").run(x -> tokens[0]++).op(Ops.wakeOne(wq)).build();
              default -> Program.named("io").op(Ops.vmExit("IO", exitHandler)).op(Ops.raiseInterrupt(
                  x -> vm.guest().cpu(r.nextInt(4)), irq)).build();
            };
          }))
          .run(t -> count[0]++)
          .build();
      vm.guest().spawn("worker" + i, Program.named("main").loopWhile(t -> true, body).build());
    }
    // a producer that never sleeps keeps consumers from starving forever
    vm.guest().spawn("producer", Program.named("producer").loopWhile(t -> true, Program.named("p")
        .work(30 * US, "produce").run(x -> tokens[0] += 2).op(Ops.wakeOne(wq)).op(Ops.wakeOne(wq)).build()).build());
    sim.runUntil(30 * MS);
    List<Long> it = new ArrayList<>();
    for (long[] c : counters) {
      it.add(c[0]);
    }
    return new Result(sim.fingerprint(), it);
  }
}

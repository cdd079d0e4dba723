package org.lockvisor.machine;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.machine.config.KernelConfig;
import org.lockvisor.machine.config.TtwuQueueMode;
import org.lockvisor.scheduler.builtin.CfsScheduler;

/**
 * A softirq left pending on a CPU runs at the exit of the next hard interrupt there (kernel/softirq.c
 * 3.0.27 {@code irq_exit}: {@code if (!in_interrupt() && local_softirq_pending()) invoke_softirq();}):
 * the timer tick ({@code smp_apic_timer_interrupt}: {@code irq_enter(); local_apic_timer_interrupt();
 * irq_exit();}) and a reschedule IPI that ran a wake list ({@code scheduler_ipi}, kernel/sched.c
 * 3.0.27: {@code irq_enter(); sched_ttwu_do_pending(list); irq_exit();}), on the interrupted task.
 */
class IrqExitSoftirqTest {
  private static final long MS = 1_000_000;

  /** One pending flag per CPU; its __do_softirq records where and when it ran. */
  private static final class Source implements PendingSoftirq {
    final boolean[] pending;
    int runs;
    long ranAt = -1;
    Task ranOn;
    final Program doSoftirq;

    Source(Simulation sim, int cpus) {
      pending = new boolean[cpus];
      doSoftirq = Program.named("__do_softirq").work(5_000, "net_rx_action").run(t -> {
        runs++;
        ranAt = sim.now();
        ranOn = t;
      }).build();
    }

    @Override
    public Program onIrqExit(Cpu cpu) {
      if (!pending[cpu.index()]) {
        return null;
      }
      pending[cpu.index()] = false;
      return doSoftirq;
    }
  }

  @Test
  void theTicksIrqExitRunsAPendingSoftirq_onTheTaskItInterrupted() {
    Simulation sim = new Simulation(1);
    Machine machine = new Machine(sim);
    Kernel host = machine.createHost("host", 2, KernelConfig.zeroCost(4 * MS), CfsScheduler.withDefaults());
    Source s = new Source(sim, 2);
    host.addPendingSoftirq(s);
    Task busy = host.spawn("busy", Program.named("busy").userWork(50 * MS, "compute").build(), 0);
    sim.runUntil(10 * MS);
    assertThat(s.runs).as("nothing pending: the ticks' exits run nothing").isZero();
    sim.scheduleAt(11 * MS, (k, a) -> s.pending[0] = true, 0, 0);
    sim.runUntil(20 * MS);
    assertThat(s.runs).isEqualTo(1);
    assertThat(s.ranOn).isSameAs(busy);
    // CPU 0 ticks every 4 ms from when the task started: the first tick after 11 ms is at 12 ms
    assertThat(s.ranAt).isEqualTo(12 * MS + 5_000);
  }

  @Test
  void aReschedIpiThatRanAWakeList_runsItAtItsExit() {
    Simulation sim = new Simulation(1);
    Machine machine = new Machine(sim);
    KernelConfig cfg = KernelConfig.zeroCost(100 * MS).withTtwu(TtwuQueueMode.ANY_REMOTE, 0, 0, 1_000, 300, false);
    Kernel host = machine.createHost("host", 2, cfg, CfsScheduler.withDefaults());
    Source s = new Source(sim, 2);
    host.addPendingSoftirq(s);
    Task busy = host.spawn("busy", Program.named("busy").userWork(50 * MS, "compute").build(), 1);
    Task sleeper = host.spawnSleeping("sleeper", Program.named("sleeper").work(10_000, "react").build(), 1);
    long[] wokeAt = {-1};
    host.spawn("waker", Program.named("waker")
        .work(2 * MS, "produce")
        .run(x -> {
          s.pending[1] = true;
          wokeAt[0] = sim.now();
        })
        .op(Ops.wake(x -> sleeper)) // TTWU_QUEUE: CPU 1's wake list and a reschedule IPI
        .build(), 0);
    sim.runUntil(10 * MS); // CPU 1's first tick would come at 100 ms
    assertThat(host.ttwuStats().ipis()).isEqualTo(1);
    assertThat(s.runs).isEqualTo(1);
    assertThat(s.ranOn).isSameAs(busy);
    assertThat(s.ranAt).isBetween(wokeAt[0], wokeAt[0] + 20_000);
  }
}

package org.lockvisor.machine;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.machine.config.KernelConfig;
import org.lockvisor.machine.config.TtwuQueueMode;
import org.lockvisor.scheduler.builtin.CfsScheduler;

/**
 * resched_curr on a remote running CPU (kernel/sched/core.c): with {@code reschedIpiOnPreempt} a
 * wakeup that makes the woken task preempt the running task of another CPU sends that CPU a
 * reschedule IPI, which the waker pays and the target takes as an interrupt (running the
 * kernel's IPI accept program); without it (the default) no IPI is priced.
 */
class ReschedIpiTest {
  private static final long MS = 1_000_000;
  private static final long FULL = 1_000;
  private static final long IPI_SEND = 300;

  private record Result(long wakerNs, long ipis, int accepted) {}

  private static Result run(boolean ipiOnPreempt) {
    Simulation sim = new Simulation(1);
    Machine machine = new Machine(sim);
    KernelConfig cfg = KernelConfig.zeroCost(MS).withTtwu(TtwuQueueMode.NEVER, 0, 0, FULL, IPI_SEND, false);
    Kernel host = machine.createHost("host", 2, cfg, CfsScheduler.withDefaults());
    host.setReschedIpiOnPreempt(ipiOnPreempt);
    int[] accepted = {0};
    host.setIpiAccept(Program.named("accept").run(t -> accepted[0]++).build());
    long[] t = {-1, -1};
    host.spawn("busy", Program.named("busy").userWork(50 * MS, "compute").build(), 1);
    Task sleeper = host.spawnSleeping("sleeper", Program.named("sleeper").work(10_000, "react").build(), 1);
    host.spawn("waker", Program.named("waker")
        .work(5 * MS, "produce")
        .run(x -> t[0] = sim.now())
        .op(Ops.wake(x -> sleeper))
        .run(x -> t[1] = sim.now())
        .build(), 0);
    sim.runUntil(20 * MS);
    return new Result(t[1] - t[0], host.ttwuStats().ipis(), accepted[0]);
  }

  @Test
  void wakeupPreemptsRemoteRunningTask_flagOn_ipiSentPaidAndAccepted() {
    Result r = run(true);
    assertThat(r.ipis()).isEqualTo(1);
    assertThat(r.wakerNs()).isEqualTo(FULL + IPI_SEND);
    assertThat(r.accepted()).isEqualTo(1);
  }

  @Test
  void wakeupPreemptsRemoteRunningTask_flagOff_noIpi() {
    Result r = run(false);
    assertThat(r.ipis()).isZero();
    assertThat(r.wakerNs()).isEqualTo(FULL);
    assertThat(r.accepted()).isZero();
  }
}

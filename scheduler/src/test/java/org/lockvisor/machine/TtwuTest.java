package org.lockvisor.machine;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.machine.config.KernelConfig;
import org.lockvisor.machine.config.TtwuQueueMode;
import org.lockvisor.scheduler.builtin.CfsScheduler;

/**
 * try_to_wake_up costs and latencies (kernel/sched/core.c): the waker pays the cost class of
 * the path it took (fast exit, full wakeup, queued wakeup) plus the IPI send when the target is
 * a remote idle CPU; the wakee runs after the target's idle-exit latency.
 */
class TtwuTest {
  private static final long MS = 1_000_000;
  private static final long RUNNING = 100;
  private static final long ON_RQ = 500;
  private static final long FULL = 1_000;
  private static final long IPI_SEND = 300;
  private static final long IDLE_EXIT = 5_000;

  private final Simulation sim = new Simulation(1);
  private final Machine machine = new Machine(sim);

  private Kernel host(TtwuQueueMode mode) {
    KernelConfig cfg = KernelConfig.zeroCost(MS)
        .withTtwu(mode, RUNNING, ON_RQ, FULL, IPI_SEND, false)
        .withIdleExit(IDLE_EXIT);
    return machine.createHost("host", 2, cfg, CfsScheduler.withDefaults());
  }

  /** Times: [0] waker starts try_to_wake_up, [1] waker done, [2] wakee starts. */
  private long[] wakeSleeperOnIdleRemoteCpu(Kernel host) {
    long[] t = {-1, -1, -1};
    Task sleeper = host.spawnSleeping("sleeper", Program.named("sleeper").run(x -> t[2] = sim.now()).build(), 1);
    host.spawn("waker", Program.named("waker")
        .work(1_000, "produce")
        .run(x -> t[0] = sim.now())
        .op(Ops.wake(x -> sleeper))
        .run(x -> t[1] = sim.now())
        .build(), 0);
    sim.runUntil(MS);
    return t;
  }

  @Test
  void wake_idleRemoteCpu_wakerPaysFullTtwuPlusIpiSend_wakeeStartsAfterIdleExit() {
    Kernel host = host(TtwuQueueMode.NEVER);
    long[] t = wakeSleeperOnIdleRemoteCpu(host);

    assertThat(t[1] - t[0]).isEqualTo(FULL + IPI_SEND);
    // runnable after the pi_lock part, then the idle CPU leaves its idle state
    assertThat(t[2] - t[0]).isEqualTo(RUNNING + IDLE_EXIT);
    assertThat(host.ttwuStats()).isEqualTo(new Kernel.TtwuStats(0, 0, 0, 1, 0, 1));
  }

  @Test
  void wake_idleRemoteCpuWithTtwuQueue_wakerPaysHalfPathPlusIpi_wakeeActivatedByIpiHandler() {
    Kernel host = host(TtwuQueueMode.ANY_REMOTE);
    long[] t = wakeSleeperOnIdleRemoteCpu(host);

    assertThat(t[1] - t[0]).isEqualTo(FULL / 2 + IPI_SEND);
    assertThat(t[2] - t[0]).isEqualTo(FULL / 2 + IDLE_EXIT);
    assertThat(host.ttwuStats()).isEqualTo(new Kernel.TtwuStats(0, 0, 0, 0, 1, 1));
  }

  @Test
  void wake_targetAlreadyRunning_wakerPaysOnlyTheFastExit() {
    Kernel host = host(TtwuQueueMode.NEVER);
    long[] t = {-1, -1};
    Task busy = host.spawn("busy", Program.named("busy").work(10 * MS, "compute").build(), 1);
    host.spawn("waker", Program.named("waker")
        .work(1_000, "produce")
        .run(x -> t[0] = sim.now())
        .op(Ops.wake(x -> busy))
        .run(x -> t[1] = sim.now())
        .build(), 0);
    sim.runUntil(MS);

    assertThat(t[1] - t[0]).isEqualTo(RUNNING);
    assertThat(host.ttwuStats()).isEqualTo(new Kernel.TtwuStats(1, 0, 0, 0, 0, 0));
  }

  @Test
  void wake_targetSetSleepingStateButStillQueued_wakerPaysOnRqPathAndTargetNeverSleeps() {
    Kernel host = host(TtwuQueueMode.NEVER);
    long[] t = {-1, -1, -1, -1};
    // set_current_state(TASK_INTERRUPTIBLE); ...; schedule(): the wakeup lands in between
    Task target = host.spawn("target", Program.named("target")
        .run(x -> t[2] = sim.now())
        .op(Ops.setState(TaskState.INTERRUPTIBLE))
        .work(5_000, "between_set_state_and_schedule")
        .op(Ops.schedule())
        .run(x -> t[3] = sim.now())
        .build(), 1);
    host.spawn("waker", Program.named("waker")
        .work(1_000, "produce")
        .run(x -> t[0] = sim.now())
        .op(Ops.wake(x -> target))
        .run(x -> t[1] = sim.now())
        .build(), 0);
    sim.runUntil(MS);

    assertThat(t[0]).isBetween(t[2], t[2] + 5_000);
    assertThat(t[1] - t[0]).isEqualTo(ON_RQ);
    assertThat(host.ttwuStats().onRq()).isEqualTo(1);
    // schedule() found the state RUNNING again and returned at once: no sleep, no second activation
    assertThat(t[3]).isEqualTo(t[2] + 5_000);
    assertThat(target.wakeups()).isEqualTo(1);
  }

  /**
   * A sleeper whose CPU is still switching it out when the wakeup comes; returns {waker start,
   * waker done, sleeper's schedule() call}.
   */
  private long[] wakeWhileSwitchingOut(boolean waitOnCpu) {
    long cs = 2_000;
    KernelConfig cfg = KernelConfig.zeroCost(MS)
        .withTtwu(TtwuQueueMode.NEVER, RUNNING, ON_RQ, FULL, IPI_SEND, false)
        .withContextSwitch(cs);
    Kernel host = machine.createHost("host", 2, cfg, CfsScheduler.withDefaults());
    host.setTtwuWaitsOnCpu(waitOnCpu);
    long[] t = {-1, -1, -1};
    Task sleeper = host.spawn("sleeper", Program.named("sleeper")
        .work(500, "work")
        .op(Ops.setState(TaskState.INTERRUPTIBLE))
        .run(x -> t[2] = sim.now())
        .op(Ops.schedule())
        .build(), 1);
    host.spawn("waker", Program.named("waker")
        .work(1_000, "produce")
        .run(x -> t[0] = sim.now())
        .op(Ops.wake(x -> sleeper))
        .run(x -> t[1] = sim.now())
        .build(), 0);
    sim.runUntil(MS);
    // both tasks were switched in at the same time, so the wake comes while the sleeper's switch-out
    assertThat(t[0]).isBetween(t[2], t[2] + cs);
    return t;
  }

  @Test
  void wake_wakeeStillBeingSwitchedOut_3_0WakerSpinsOnOnCpuUntilTheSwitchCompletes() {
    long[] t = wakeWhileSwitchingOut(true);

    long switchedOut = t[2] + 2_000;
    // fast-exit part, then cpu_relax() until finish_lock_switch, then the rest of the full path
    assertThat(t[1]).isEqualTo(switchedOut + (FULL - RUNNING) + IPI_SEND);
    assertThat(machine.host().ttwuOnCpuWaits()).isEqualTo(1);
  }

  @Test
  void wake_wakeeStillBeingSwitchedOut_withoutOnCpuWaitTheWakerDoesNotWait() {
    long[] t = wakeWhileSwitchingOut(false);

    assertThat(t[1] - t[0]).isEqualTo(FULL + IPI_SEND);
    assertThat(machine.host().ttwuOnCpuWaits()).isZero();
  }
}

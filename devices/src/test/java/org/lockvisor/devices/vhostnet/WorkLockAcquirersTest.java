package org.lockvisor.devices.vhostnet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.lockvisor.devices.testing.TestMachines.MS;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.core.plugin.BoundOptions;
import org.lockvisor.devices.spi.DeviceContext;
import org.lockvisor.devices.testing.TestLocks;
import org.lockvisor.devices.testing.TestMachines;
import org.lockvisor.devices.vhostnet.WorkLockAcquirers.Acquirer;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Vm;

/**
 * The saving's ceiling counts work_lock's acquirers by the path that takes the lock. A contrived
 * run whose collisions are known from its construction: every 100 us a holder takes work_lock for
 * 50 us; the softirq path calls vhost_work_queue 25 us into each hold (it must find the lock held
 * every time and spin for the rest of the hold, ~25 us), the vCPU-kick path 75 us into each period
 * (the lock is free then: never a collision, only the atomic).
 */
class WorkLockAcquirersTest {
  private static final long PERIOD = 100_000;
  private static final long HOLD = 50_000;

  @Test
  void contrivedTwoAcquirers_collisionsAndSpinAsConstructed() {
    Machine m = TestMachines.machine(5, 8);
    Vm vm = TestMachines.vm(m, 1);
    VhostNet dev = new VhostNet("eth0",
        VhostNetConfig.defaults().withWorkQueue(VhostNetConfig.WorkQueue.WAKE_INSIDE_LOCK), VhostNetCosts.ESTIMATES);
    dev.attach(DeviceContext.of("dev", BoundOptions.none("test device"), TestMachines.X86_COSTS, new TestLocks(60), vm));
    long[] calls = new long[2];
    Program holder = Program.interruptHandler("holder")
        .op(dev.workLock().lock(LockMode.IRQSAVE)).work(HOLD, "hold").op(dev.workLock().unlock(LockMode.IRQSAVE))
        .build();
    Program softirq = Program.interruptHandler("softirq").run(t -> calls[0]++)
        .call(dev.txWorkQueuePath(Acquirer.SOFTIRQ)).build();
    Program kick = Program.interruptHandler("kick").run(t -> calls[1]++)
        .call(dev.txWorkQueuePath(Acquirer.VCPU_KICK)).build();
    long end = 40 * MS;
    for (long t0 = MS; t0 < end; t0 += PERIOD) {
      m.sim().scheduleAt(t0, (k, a) -> m.host().cpu(5).raiseInterrupt(holder), 0, 0);
      m.sim().scheduleAt(t0 + HOLD / 2, (k, a) -> m.host().cpu(6).raiseInterrupt(softirq), 0, 0);
      m.sim().scheduleAt(t0 + HOLD + HOLD / 2, (k, a) -> m.host().cpu(7).raiseInterrupt(kick), 0, 0);
    }
    m.sim().setEventBudget(50_000_000);
    m.sim().runUntil(MS / 2);
    dev.resetStats();
    m.sim().runUntil(end);

    WorkLockAcquirers w = dev.workLockAcquirers();
    assertThat(calls[0]).isGreaterThan(350);
    assertThat(w.acquisitions(Acquirer.SOFTIRQ)).isEqualTo(calls[0]);
    assertThat(w.collisions(Acquirer.SOFTIRQ)).isEqualTo(calls[0]);
    // each softirq call waits out the rest of the hold (25 us), plus at most a little for the atomic
    assertThat(w.acquireNs(Acquirer.SOFTIRQ)).isBetween(calls[0] * (HOLD / 2 - 1_000), calls[0] * (HOLD / 2 + 2_000));
    assertThat(w.acquisitions(Acquirer.VCPU_KICK)).isEqualTo(calls[1]);
    assertThat(w.collisions(Acquirer.VCPU_KICK)).isZero();
    assertThat(w.acquireNs(Acquirer.VCPU_KICK)).isLessThan(calls[1] * 1_000);
    // the worker (woken by both) takes the lock at the top of every loop; it runs after the holder
    assertThat(w.acquisitions(Acquirer.WORKER)).isGreaterThanOrEqualTo(calls[1]);
    Map<String, Number> s = dev.stats();
    assertThat(s.get("work_lock.by_softirq.collisions").longValue()).isEqualTo(calls[0]);
    assertThat(s.get("work_lock.by_vcpu_kick.collisions").longValue()).isZero();
    assertThat(s.get("work_lock.acquire_ns_on_worker_top").longValue())
        .isLessThanOrEqualTo(w.acquireNs(Acquirer.WORKER));
  }

  @Test
  void llist_hasNoAcquirers() {
    Machine m = TestMachines.machine(5, 4);
    Vm vm = TestMachines.vm(m, 1);
    VhostNet dev = new VhostNet("eth0", VhostNetConfig.defaults().withWorkQueue(VhostNetConfig.WorkQueue.LLIST),
        VhostNetCosts.ESTIMATES);
    dev.attach(DeviceContext.of("dev", BoundOptions.none("test device"), TestMachines.X86_COSTS, new TestLocks(60), vm));
    assertThat(dev.workLockAcquirers()).isNull();
    assertThat(dev.stats()).doesNotContainKey("work_lock.by_worker.acquisitions");
  }
}

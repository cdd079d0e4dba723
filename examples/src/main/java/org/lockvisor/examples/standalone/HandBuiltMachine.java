package org.lockvisor.examples.standalone;

import org.lockvisor.arch.spi.ArchCosts;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.locking.builtin.TicketSpinLockFactory;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockContext;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.locking.spi.LockStats;
import org.lockvisor.machine.CacheLines;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Ops;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Vm;
import org.lockvisor.machine.config.HypervisorConfig;
import org.lockvisor.machine.config.KernelConfig;
import org.lockvisor.machine.config.TtwuQueueMode;
import org.lockvisor.scheduler.builtin.RoundRobinScheduler;

/**
 * The smallest useful lockvisor program: a host with {@code cpus} physical CPUs, one guest with
 * {@code vcpus} vCPUs pinned round-robin, a ticket spinlock in the guest and {@code tasks} guest
 * tasks taking it for 1 us and thinking for 2 us, run for {@code durationNs}; returns the lock's
 * statistics. Costs are written here by hand (a real experiment takes them from an arch profile).
 */
public final class HandBuiltMachine {

  private HandBuiltMachine() {}

  public static LockStats measure(int cpus, int vcpus, int tasks, long durationNs, long seed) {
    Machine machine = new Machine(new Simulation(seed));
    KernelConfig kernel = new KernelConfig(4_000_000, false, TtwuQueueMode.NEVER, 64, 1_500, 2_000, 100, 500, 1_000,
        300, false, 300);
    machine.createHost("host", cpus, kernel, new RoundRobinScheduler(1_000_000));
    int[] pinning = new int[vcpus];
    for (int i = 0; i < vcpus; i++) {
      pinning[i] = i % cpus;
    }
    Vm vm = machine.createVm("vm0", vcpus, kernel, new RoundRobinScheduler(1_000_000),
        new HypervisorConfig(700, 500, 0), pinning);
    Kernel guest = vm.guest();
    ArchCosts costs = ArchCosts.ofLocks(6, 60, 4, 1 << 15, 1_500, 300, 1_000);
    machine.setCacheLines(CacheLines.flat(cpus, costs)); // the lock word's atomics, priced by where the line was
    KernelLock lock = LockContext.builder(guest, costs).name("demo_lock").create(new TicketSpinLockFactory());
    Program iteration = Program.named("demo_iteration")
        .op(lock.lock(LockMode.PLAIN))
        .work(1_000, "demo_critical_section")
        .op(lock.unlock(LockMode.PLAIN))
        .work(2_000, "demo_think")
        .op(Ops.condResched())
        .build();
    Program loop = Program.named("demo").loopWhile(t -> true, iteration).build();
    for (int i = 0; i < tasks; i++) {
      guest.spawn("demo/" + i, loop);
    }
    machine.sim().runUntil(durationNs);
    return lock.stats();
  }

  public static void main(String[] args) {
    LockStats s = measure(4, 4, 8, 10_000_000, 1);
    System.out.printf("acquisitions %d, contentions %d, mean wait %.0f ns, mean hold %.0f ns%n",
        s.acquisitions(), s.contentions(), s.waitAvgNs(), s.holdAvgNs());
  }
}

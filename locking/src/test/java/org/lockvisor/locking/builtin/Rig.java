package org.lockvisor.locking.builtin;

import java.util.Map;
import org.lockvisor.arch.spi.ArchCosts;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockContext;
import org.lockvisor.locking.spi.LockFactory;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.machine.CacheLines;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.VcpuPreemptedHook;
import org.lockvisor.machine.Vm;
import org.lockvisor.machine.config.HypervisorConfig;
import org.lockvisor.machine.config.KernelConfig;
import org.lockvisor.machine.config.TtwuQueueMode;
import org.lockvisor.scheduler.builtin.RoundRobinScheduler;

/**
 * A small machine for the plugin-specific tests (the contract kit's testbed lives in
 * locking-testkit, which depends on this module): a host, one VM with vCPUs pinned round-robin
 * over the physical CPUs, optional host hogs, and a hammer workload.
 */
final class Rig {
  static final ArchCosts COSTS = ArchCosts.ofLocks(6, 60, 4, 1 << 13, 1_500, 300, 1_000);
  static final KernelConfig KERNEL = new KernelConfig(4_000_000, false, TtwuQueueMode.NEVER, 1 << 16, 1_500,
      2_000, 100, 500, 1_000, 300, false, 300);

  final Simulation sim;
  final Machine machine;
  final Kernel host;
  final Vm vm;
  private int finished;
  private int expected;
  long finishedAt = -1;
  KernelLock lockUnderTest;

  Rig(long seed, int physicalCpus, int vcpus, int hogsPerCpu, VcpuPreemptedHook hook) {
    sim = new Simulation(seed);
    machine = new Machine(sim);
    host = machine.createHost("host", physicalCpus, KERNEL, new RoundRobinScheduler(1_000_000));
    machine.setCacheLines(CacheLines.flat(physicalCpus, COSTS));
    int[] pin = new int[vcpus];
    for (int i = 0; i < vcpus; i++) {
      pin[i] = i % physicalCpus;
    }
    vm = machine.createVm("vm0", vcpus, KERNEL, new RoundRobinScheduler(1_000_000),
        new HypervisorConfig(700, 500, 0), pin);
    vm.guest().setVcpuPreemptedHook(hook);
    Program hog = Program.named("hog")
        .loopWhile(t -> true, Program.named("hog_loop").userWork(1_000_000, "hog").build())
        .build();
    for (int c = 0; c < physicalCpus; c++) {
      for (int h = 0; h < hogsPerCpu; h++) {
        host.spawn("hog/" + c + "/" + h, hog, c);
      }
    }
  }

  KernelLock lock(LockFactory f, boolean vcpuCheck, Map<String, String> options) {
    return LockContext.builder(vm.guest(), COSTS).name("test_lock").vcpuIsPreemptedCheck(vcpuCheck).options(options)
        .create(f);
  }

  /** {@code tasks} guest tasks take {@code lock} {@code iterations} times each; runs to completion. */
  Rig hammer(KernelLock lock, LockMode mode, int tasks, int iterations, long csNs, long thinkNs) {
    int[] left = new int[machine.tasks().size() + tasks + 16];
    Program body = Program.named("hammer_iteration")
        .op(lock.lock(mode))
        .work(csNs, "critical_section")
        .op(lock.unlock(mode))
        .run(t -> left[t.id()]--)
        .userWork(thinkNs, "think")
        .build();
    Program main = Program.named("hammer")
        .loopWhile(t -> left[t.id()] > 0, body)
        .run(t -> {
          if (++finished == expected) {
            finishedAt = sim.now();
            sim.stop();
          }
        })
        .build();
    expected += tasks;
    for (int i = 0; i < tasks; i++) {
      var t = vm.guest().spawn("hammer/" + i, main);
      left[t.id()] = iterations;
    }
    sim.runUntil(60_000_000_000L);
    return this;
  }

  boolean allFinished() {
    return finished == expected;
  }

  /** CPU time (ns) charged with {@code symbol} as the leaf. */
  long symbolTime(String symbol) {
    machine.syncAccounting();
    long[] sum = {0};
    machine.account().forEach((cpu, thread, stack, ns) -> {
      if (machine.symbols().name(machine.symbols().leaf(stack)).equals(symbol)) {
        sum[0] += ns;
      }
    });
    return sum[0];
  }

  /** Acquisitions per simulated second. */
  double throughput(KernelLock lock) {
    return lock.stats().acquisitions() * 1e9 / finishedAt;
  }

  static String describe(KernelLock lock, Rig rig) {
    var s = lock.stats();
    return String.format(
        "%s: acq=%d con=%d finish=%.2fms wait=%.1fus/con holderPreemptedWait=%.2fms handoffsToPreempted=%d"
            + " sleeps=%d halts=%d kicks=%d bailouts=%d spinAcq=%d confers=%d",
        lock, s.acquisitions(), s.contentions(), rig.finishedAt / 1e6, s.waitAvgNs() / 1e3,
        s.holderPreemptedWaitNs() / 1e6, s.handoffsToPreemptedWaiter(), s.sleeps(), s.halts(), s.kicks(),
        s.spinBailouts(), s.spinAcquisitions(), s.confers());
  }
}

package ${package};

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.lockvisor.machine.CacheLines;
import org.lockvisor.arch.builtin.X86KvmArchProfile;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.arch.spi.ArchCosts;
import org.lockvisor.locking.builtin.TicketSpinLockFactory;
import org.lockvisor.core.plugin.OptionBinder;
import org.lockvisor.locking.spi.KernelLocks;
import org.lockvisor.machine.HypervisorConfig;
import org.lockvisor.machine.KernelConfig;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.TtwuQueueMode;
import org.lockvisor.machine.Vm;
import org.lockvisor.scheduler.builtin.RoundRobinScheduler;
import org.lockvisor.workloads.spi.Workload;
import org.lockvisor.workloads.spi.WorkloadContext;
import org.lockvisor.workloads.spi.WorkloadFactory;

/**
 * The workload makes progress on a small overcommitted machine (where lock-holder preemption
 * bounds it to about one acquisition per host time slice), a longer critical section lowers its
 * rate on dedicated CPUs, bad options are refused, and it is found by ServiceLoader like a
 * built-in.
 */
class ${className}Test {

  /** 4 vCPUs on {@code physicalCpus} host CPUs (pinned round-robin), measured after a warm-up. */
  private static Workload run(Map<String, String> options, int physicalCpus, long warmupNs, long durationNs) {
    Machine machine = new Machine(new Simulation(1));
    KernelConfig kernel = new KernelConfig(4_000_000, false, TtwuQueueMode.NEVER, 1 << 16, 1_500, 2_000, 100, 500,
        1_000, 300, false, 300);
    machine.createHost("host", physicalCpus, kernel, new RoundRobinScheduler(200_000));
    Vm vm = machine.createVm("vm0", 4, kernel, new RoundRobinScheduler(500_000), new HypervisorConfig(700, 500, 0),
        0, 1 % physicalCpus, 2 % physicalCpus, 3 % physicalCpus);
    ArchCosts costs = ArchCosts.ofLocks(6, 60, 4, 1 << 13, 1_500, 300, 1_000);
    machine.setCacheLines(CacheLines.flat(physicalCpus, costs)); // atomics priced by where the line was
    KernelLocks locks = KernelLocks.of(costs, kind -> new TicketSpinLockFactory());
    ${className}Factory factory = new ${className}Factory();
    WorkloadContext context = WorkloadContext.of("w", OptionBinder.bind(factory, options),
        ArchCosts.of(new X86KvmArchProfile().create()), locks, vm, Map.of());
    Workload workload = factory.create(context);
    workload.start(context);
    machine.sim().runUntil(warmupNs);
    workload.resetStats();
    machine.sim().runUntil(warmupNs + durationNs);
    return workload;
  }

  @Test
  void run_overcommittedMachine_makesProgress() {
    Workload w = run(Map.of(), 2, 1_000_000, 10_000_000);

    assertThat(w.figures().get("ops").longValue()).isGreaterThan(20);
    assertThat(w.figures().keySet()).containsExactly("ops", "ops_per_s");
  }

  @Test
  void holdNs_longerCriticalSection_lowerRate() {
    double shortHold = run(Map.of("hold-ns", "1000"), 4, 1_000_000, 10_000_000).figures().get("ops_per_s")
        .doubleValue();
    double longHold = run(Map.of("hold-ns", "20000"), 4, 1_000_000, 10_000_000).figures().get("ops_per_s")
        .doubleValue();

    assertThat(longHold).isLessThan(shortHold / 2);
  }

  @Test
  void create_unknownOption_refused() {
    assertThatThrownBy(() -> OptionBinder.bind(new ${className}Factory(), Map.of("thread", "2")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown option [thread]");
  }

  @Test
  void serviceLoader_findsThePlugin() {
    assertThat(ServiceLoader.load(WorkloadFactory.class).stream().map(p -> p.get().name()))
        .contains(${className}Factory.NAME);
  }
}

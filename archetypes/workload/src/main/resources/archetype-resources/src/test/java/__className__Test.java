package ${package};

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.lockvisor.arch.builtin.X86KvmArchProfile;
import org.lockvisor.arch.spi.ArchCosts;
import org.lockvisor.core.plugin.OptionBinder;
import org.lockvisor.locking.builtin.TicketSpinLockFactory;
import org.lockvisor.locking.spi.KernelLocks;
import org.lockvisor.locking.testkit.LockTestbed;
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

  /**
   * 4 vCPUs on {@code physicalCpus} host CPUs (pinned round-robin, round-robin schedulers): the
   * kits' machine testbed ({@link LockTestbed}), measured after a warm-up; its locks are tickets.
   */
  private static Workload run(Map<String, String> options, int physicalCpus, long warmupNs, long durationNs) {
    LockTestbed testbed = LockTestbed.builder().physicalCpus(physicalCpus).vcpus(4).build();
    KernelLocks locks = KernelLocks.of(testbed.costs(), kind -> new TicketSpinLockFactory());
    ${className}Factory factory = new ${className}Factory();
    WorkloadContext context = WorkloadContext.of("w", OptionBinder.bind(factory, options),
        ArchCosts.of(new X86KvmArchProfile().create()), locks, testbed.vm(), Map.of());
    Workload workload = factory.create(context);
    workload.start(context);
    testbed.sim().runUntil(warmupNs);
    workload.resetStats();
    testbed.sim().runUntil(warmupNs + durationNs);
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

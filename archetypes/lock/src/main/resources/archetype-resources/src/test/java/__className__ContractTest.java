package ${package};

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockFactory;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.locking.testkit.LockContractTest;
import org.lockvisor.locking.testkit.LockTestbed;
import org.lockvisor.locking.testkit.LockWorkload;

/**
 * The lock keeps lockvisor's lock contract (the kit: mutual exclusion, no lost wakeup, progress under
 * vCPU preemption, liveness, the fairness its capabilities claim), is found by ServiceLoader like a
 * built-in, and shows the behaviour it exists for beside its negative case (replace both with your
 * lock's). The backoff ticket lock keeps the contract (liveness included) with a backoff unit of
 * 20 us, and shows the behaviour it exists for beside its negative case: waiters back off by queue
 * position yet the lock is handed on at once, because the backoff reads the lock word and the
 * unlocker's poke ends it; the same lock backing off in a counting delay ({@code backoff: delay})
 * leaves the lock free while its next waiter counts.
 */
class ${className}ContractTest extends LockContractTest {
  /** Longest hand-off that counts as "at once": a few line transfers and the xadd, far below one backoff unit. */
  static final long AT_ONCE_NS = 2_000;

  @Override
  protected LockFactory factory() {
    return new ${className}Factory();
  }

  @Override
  protected Map<String, String> options() {
    return Map.of("unit-ns", "20us", "backoff", "spin");
  }

  @Override
  protected Optional<Behaviour> behaviour() {
    return Optional.of(new Behaviour() {
      @Override
      public String description() {
        return "the lock is handed on within " + AT_ONCE_NS + " ns although waiters back off 20 us per position";
      }

      @Override
      public LockFactory negativeFactory() {
        return new ${className}Factory();
      }

      @Override
      public Map<String, String> negativeOptions() {
        return Map.of("unit-ns", "20us", "backoff", "delay");
      }

      @Override
      public LockTestbed.Builder testbed() {
        // a vCPU per physical CPU: no vCPU preemption stretches a hand-off
        return LockTestbed.builder().seed(91).vcpus(4).physicalCpus(4);
      }

      @Override
      public Outcome run(LockTestbed bed, KernelLock lock) {
        LockWorkload w = LockWorkload.on(bed, lock).mode(LockMode.PLAIN).tasks(4).iterations(50)
            .criticalSectionNs(2_000, 5_000).thinkNs(0, 1_000).start().run(BOUND_NS);
        return new Outcome(w.allFinished() && w.maxHandoffNs() <= AT_ONCE_NS,
            "longest hand-off " + w.maxHandoffNs() + " ns, finished " + w.allFinished());
      }
    });
  }

  @Test
  void serviceLoader_findsThePlugin() {
    assertThat(ServiceLoader.load(LockFactory.class).stream().map(p -> p.get().name()))
        .contains(${className}Factory.NAME);
  }
}

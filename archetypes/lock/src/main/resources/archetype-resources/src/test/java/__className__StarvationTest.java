package ${package};

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.locking.testkit.LockContractTest;
import org.lockvisor.locking.testkit.LockInvariant;
import org.lockvisor.locking.testkit.LockTestbed;
import org.lockvisor.locking.testkit.LockWorkload;

/**
 * The kit's liveness invariant tells a starving variant of this lock from the real one. The planted variant backs off in a counting delay of 10 ms per queue position: a poke cannot
 * shorten it, so a writer 15 tickets back counts 150 ms while the lock stays free, over the kit's
 * 100 ms bound. The real one (reading the lock word while it backs off) passes the same run.
 */
class ${className}StarvationTest {

  private static LockTestbed.Builder testbed() {
    return LockTestbed.builder().seed(17);
  }

  @Test
  void liveness_plantedStarvingVariant_failsNamingTheWriterAndTheTime() {
    LockWorkload w = LockContractTest.lockTortureLiveness(testbed(), new ${className}Factory(),
        Map.of("unit-ns", "10ms", "backoff", "delay"));

    assertThat(w.violated()).contains(LockInvariant.LIVENESS);
    assertThat(w.violations()).anySatisfy(v -> assertThat(v)
        .matches("t=\\d+ns .*: liveness: torture/\\d+ has not acquired the lock for \\d+ ns \\(since t=\\d+ns\\), "
            + "over the bound of 100000000 ns"));
  }

  @Test
  void liveness_realLock_sameRun_passes() {
    LockWorkload w = LockContractTest.lockTortureLiveness(testbed(), new ${className}Factory(),
        Map.of("unit-ns", "10ms", "backoff", "spin"));

    assertThat(w.violations()).isEmpty();
    assertThat(w.allFinished()).isTrue();
  }
}

package ${package};

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.lockvisor.locking.spi.LockFactory;
import org.lockvisor.locking.testkit.LockContractTest;

/**
 * The lock keeps lockvisor's lock contract (mutual exclusion, no lost wakeup, progress under vCPU
 * preemption, the fairness its capabilities claim) and is found by ServiceLoader like a built-in.
 */
class PluginLockContractTest extends LockContractTest {

  @Override
  protected LockFactory factory() {
    return new PluginLockFactory();
  }

  @Test
  void serviceLoader_findsThePlugin() {
    assertThat(ServiceLoader.load(LockFactory.class).stream().map(p -> p.get().name()))
        .contains(PluginLockFactory.NAME);
  }
}

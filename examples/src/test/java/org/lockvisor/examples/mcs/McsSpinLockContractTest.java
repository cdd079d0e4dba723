package org.lockvisor.examples.mcs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.lockvisor.locking.spi.LockFactory;
import org.lockvisor.locking.testkit.LockContractTest;

/** The third-party MCS plugin keeps the lock contract and is discoverable like a built-in. */
class McsSpinLockContractTest extends LockContractTest {
  @Override
  protected LockFactory factory() {
    return new McsSpinLockFactory();
  }

  @Test
  void serviceLoader_findsTheExamplePlugin() {
    assertThat(ServiceLoader.load(LockFactory.class).stream().map(p -> p.get().name()))
        .contains("mcs", "ticket", "qspinlock");
  }
}

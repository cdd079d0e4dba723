package org.lockvisor.experiment.model;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.lockvisor.core.plugin.PluginDiscoveryException;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockContext;
import org.lockvisor.locking.spi.LockFactory;

/**
 * Lock capabilities are a closed vocabulary checked at discovery: a plugin declaring {@code
 * "FIFO"} (instead of {@code fifo}) is refused with the known capabilities, instead of silently
 * skipping the FIFO contract tests.
 */
class LockCapabilityDiscoveryTest {

  @Test
  void discovery_capabilityTypo_refusedNamingThePlugin() {
    ExperimentPlugins builtIns = ExperimentPlugins.discover(getClass().getClassLoader());
    Map<String, LockFactory> locks = new HashMap<>(builtIns.locks());
    locks.put("shouty", new Shouty());
    assertThatThrownBy(() -> new ExperimentPlugins(builtIns.arches(), builtIns.schedulers(), locks,
        builtIns.devices(), builtIns.workloads()))
        .isInstanceOf(PluginDiscoveryException.class)
        .hasMessageContaining("[FIFO]")
        .hasMessageContaining("shouty")
        .hasMessageContaining("did you mean [fifo]?");
  }

  /** A third-party lock that declares its capability in capitals. */
  private static final class Shouty implements LockFactory {
    @Override
    public String name() {
      return "shouty";
    }

    @Override
    public String summary() {
      return "declares FIFO in capitals";
    }

    @Override
    public LockKind lockKind() {
      return LockKind.SPINLOCK;
    }

    @Override
    public Set<String> capabilities() {
      return Set.of("FIFO");
    }

    @Override
    public KernelLock create(LockContext context) {
      throw new UnsupportedOperationException("never created");
    }
  }
}

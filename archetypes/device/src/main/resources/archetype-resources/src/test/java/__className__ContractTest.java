package ${package};

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.lockvisor.devices.spi.DeviceFactory;
import org.lockvisor.devices.testkit.BlockDeviceContractTest;

/**
 * The device keeps lockvisor's block device contract (every request completes exactly once,
 * completions wake the submitter, nothing is lost under vCPU preemption, Little's law) and is
 * found by ServiceLoader like a built-in.
 */
class ${className}ContractTest extends BlockDeviceContractTest {

  @Override
  protected DeviceFactory factory() {
    return new ${className}Factory();
  }

  @Test
  void serviceLoader_findsThePlugin() {
    assertThat(ServiceLoader.load(DeviceFactory.class).stream().map(p -> p.get().name()))
        .contains(${className}Factory.NAME);
  }
}

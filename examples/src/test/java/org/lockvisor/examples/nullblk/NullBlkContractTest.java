package org.lockvisor.examples.nullblk;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.lockvisor.devices.spi.DeviceFactory;
import org.lockvisor.devices.testkit.BlockDeviceContractTest;
import org.lockvisor.devices.testkit.DeviceTestbed;

/**
 * The example null-blk keeps the block device contract in timer mode (completions from a per-CPU
 * hrtimer interrupt) and inline mode, is discoverable like a built-in, and its completion-nsec
 * sets its latency: a longer timer lowers throughput.
 */
class NullBlkContractTest extends BlockDeviceContractTest {
  @Override
  protected DeviceFactory factory() {
    return new NullBlkFactory();
  }

  @Test
  void serviceLoader_findsTheExampleDevice() {
    assertThat(ServiceLoader.load(DeviceFactory.class).stream().map(p -> p.get().name()))
        .contains("null-blk", "virtio-blk");
  }

  @Test
  void completionNsec_longerTimer_fewerCompletions() {
    DeviceTestbed fast = DeviceTestbed.builder(factory()).options(Map.of("completion-nsec", "10000")).build();
    DeviceTestbed slow = DeviceTestbed.builder(factory()).options(Map.of("completion-nsec", "80000")).build();

    fast.runUntil(RUN_NS);
    slow.runUntil(RUN_NS);

    assertThat(slow.completed()).isPositive().isLessThan(fast.completed() / 2);
  }

  /** irqmode=none: completed inline in queue_rq, in the submitter's own context. */
  @Nested
  class Inline extends BlockDeviceContractTest {
    @Override
    protected DeviceFactory factory() {
      return new NullBlkFactory();
    }

    @Override
    protected Map<String, String> options() {
      return Map.of("irqmode", "none");
    }
  }
}

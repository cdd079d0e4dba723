package org.lockvisor.devices.testkit;

import java.util.Map;
import org.lockvisor.devices.spi.DeviceFactory;
import org.lockvisor.devices.virtioblk.VirtioBlkFactory;

/**
 * virtio-blk with the arm64 2014 notify path (exit to the VMM, processed under its global lock
 * in the vCPU thread) and the notify inside vq_lock keeps the block device contract.
 */
class VirtioBlkUserspaceNotifyContractTest extends BlockDeviceContractTest {
  @Override
  protected DeviceFactory factory() {
    return new VirtioBlkFactory();
  }

  @Override
  protected Map<String, String> options() {
    return Map.of("notify-path", "userspace", "notify", "inside-lock");
  }
}

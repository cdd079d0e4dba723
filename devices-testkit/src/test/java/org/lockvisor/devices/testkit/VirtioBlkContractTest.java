package org.lockvisor.devices.testkit;

import org.lockvisor.devices.spi.DeviceFactory;
import org.lockvisor.devices.virtioblk.VirtioBlkFactory;

/** The built-in virtio-blk keeps the block device contract (notify outside the lock, ioeventfd). */
class VirtioBlkContractTest extends BlockDeviceContractTest {
  @Override
  protected DeviceFactory factory() {
    return new VirtioBlkFactory();
  }
}

package org.lockvisor.experiment.runner;

import com.google.common.collect.ImmutableMap;
import org.lockvisor.arch.spi.ArchProfile;
import org.lockvisor.arch.spi.CostKey;
import org.lockvisor.devices.spi.CostSource;

/**
 * The arch profile's cost table as the {@link CostSource} devices and workloads read: the keys
 * that name a profile constant are answered from the profile; any other key falls back to the
 * plugin's documented estimate (as {@link CostSource#ESTIMATES} does).
 */
final class ProfileCosts implements CostSource {
  /** Plugin cost keys that are the same quantity as a profile constant. */
  private static final ImmutableMap<String, CostKey> KEYS = ImmutableMap.<String, CostKey>builder()
      .put("fio.syscall-ns", CostKey.SYSCALL)
      .put("virtio-blk.request-setup-ns", CostKey.BLK_MQ_SUBMIT)
      .put("virtio-blk.add-ns", CostKey.VIRTQUEUE_ADD)
      .put("virtio-blk.kick-prepare-ns", CostKey.VIRTQUEUE_KICK_PREPARE)
      .put("virtio-blk.irq-entry-ns", CostKey.IRQ_ENTRY)
      .put("virtio-blk.ioeventfd-exit-ns", CostKey.EXIT_IO_KERNEL)
      .put("virtio-blk.userspace-exit-ns", CostKey.EXIT_USERSPACE)
      .put("virtio-blk.mmio-dispatch-ns", CostKey.VMM_NOTIFY_BQL)
      .put("virtio-blk.interrupt-inject-ns", CostKey.IRQ_INJECT)
      .buildOrThrow();

  private final ArchProfile profile;

  ProfileCosts(ArchProfile profile) {
    this.profile = profile;
  }

  @Override
  public long cost(String key, long estimate) {
    CostKey k = KEYS.get(key);
    if (k == null) {
      return estimate;
    }
    try {
      return profile.ns(k);
    } catch (RuntimeException notApplicable) {
      // A mechanism the architecture does not have: the plugin's own estimate stands.
      return estimate;
    }
  }
}

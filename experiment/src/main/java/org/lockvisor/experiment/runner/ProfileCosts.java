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
  /**
   * Plugin cost keys whose documented definition is the same quantity as a profile constant's.
   * Keys whose definitions differ (e.g. virtio-blk's ioeventfd exit excludes the hardware round
   * trip that EXIT_IO_KERNEL includes) are deliberately absent: the plugin's estimate stands until
   * the owner of that plugin maps them.
   */
  private static final ImmutableMap<String, CostKey> KEYS = ImmutableMap.<String, CostKey>builder()
      .put("fio.syscall-ns", CostKey.SYSCALL)
      .put("virtio-blk.request-setup-ns", CostKey.BLK_MQ_SUBMIT)
      .put("virtio-blk.add-ns", CostKey.VIRTQUEUE_ADD)
      .put("virtio-blk.kick-prepare-ns", CostKey.VIRTQUEUE_KICK_PREPARE)
      .put("virtio-blk.userspace-exit-ns", CostKey.EXIT_USERSPACE)
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

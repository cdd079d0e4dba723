package org.lockvisor.devices.virtioblk;

import org.lockvisor.devices.spi.Virtqueue;

/**
 * How the device model processes its virtqueue: how one request is popped (and which
 * {@code avail_event} that publishes) and what the device does around its pop loop. This is the
 * extension point for device-side ring behaviour: a QEMU version or a what-if is one small class,
 * passed to {@link VirtioBlk#VirtioBlk(String, VirtioBlkConfig, VirtioBlkCosts, QueuePolicy)};
 * the built-ins are in {@link QueuePolicies} and selectable with the {@code queue-policy} option.
 *
 * <p>The device calls, per processing pass ({@code virtio_blk_handle_output} of the main-loop
 * device, {@code handle_notify} of the dataplane thread): {@link #beforePopLoop}, then
 * {@link #pop} while the ring has entries, then {@link #afterPopLoop}; if that returns true it
 * starts over with {@link #beforePopLoop}. Implementations hold no per-request state and must not
 * allocate.
 */
public interface QueuePolicy {

  /** The option value, e.g. {@code qemu-2.0}. */
  String name();

  /** Pops the next available head as this device version does, or returns -1 when none. */
  int pop(Virtqueue vq);

  /** Before a pop loop, e.g. {@code virtio_queue_set_notification(vq, 0)}; default: nothing. */
  default void beforePopLoop(Virtqueue vq) {}

  /**
   * After a pop loop that emptied the ring, e.g. re-enabling notifications; returns true if the
   * driver added entries meanwhile and the device pops again. Default: nothing, false.
   */
  default boolean afterPopLoop(Virtqueue vq) {
    return false;
  }
}

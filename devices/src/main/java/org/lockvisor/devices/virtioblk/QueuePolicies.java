package org.lockvisor.devices.virtioblk;

import com.google.common.collect.ImmutableList;
import org.lockvisor.devices.spi.Virtqueue;

/**
 * The built-in {@link QueuePolicy} implementations, each a QEMU version's device side of the ring:
 *
 * <ul>
 *   <li>{@code qemu-2.0}: QEMU 1.5–2.0 {@code hw/virtio/virtio.c} {@code virtqueue_pop} publishes
 *       {@code vring_avail_event(vq, vring_avail_idx(vq))} (the driver's current index) at every
 *       pop; {@code virtio_blk_handle_output} (hw/block/virtio-blk.c 2.0) pops in a plain
 *       {@code while (virtio_blk_get_request(s))} loop and never calls
 *       {@code virtio_queue_set_notification}.
 *   <li>{@code qemu-2.0-dataplane}: QEMU 2.0 {@code hw/block/dataplane/virtio-blk.c}
 *       {@code handle_notify}: {@code vring_disable_notification} (sets {@code
 *       VRING_USED_F_NO_NOTIFY} without EVENT_IDX, writes nothing with it), {@code vring_pop}
 *       (hw/virtio/dataplane/vring.c, publishes {@code avail_event = avail->idx} like the
 *       main-loop pop) until empty, then {@code vring_enable_notification} (publishes
 *       {@code avail->idx} or clears the flag, barrier) and pops again if the guest "snuck in more
 *       descriptors".
 *   <li>{@code last-avail-idx}: later QEMU's {@code virtqueue_pop} (read in the 2.4–2.6 sources)
 *       publishes {@code avail_event = last_avail_idx}: with a backlog the driver's adds are not
 *       kicked.
 *   <li>{@code suppress-while-processing}: QEMU 2.8's {@code virtio_blk_handle_vq} ("virtio-blk:
 *       suppress virtqueue kick during processing", Stefan Hajnoczi, 2016): {@code do {
 *       virtio_queue_set_notification(vq, 0); pop all; virtio_queue_set_notification(vq, 1); }
 *       while (!virtio_queue_empty(vq))}, with the {@code last_avail_idx} pop. Under EVENT_IDX
 *       2.8's {@code vring_set_avail_event} writes nothing while {@code vq->notification} is off
 *       (read in hw/virtio/virtio.c 2.8.1), so avail_event stays where the last enable put it and
 *       the driver kicks at most once per pass ({@link Virtqueue#setNotification}).
 * </ul>
 */
public final class QueuePolicies {
  private QueuePolicies() {}

  /** Option values of the built-ins, in the order above. */
  public static final ImmutableList<String> NAMES =
      ImmutableList.of("qemu-2.0", "qemu-2.0-dataplane", "last-avail-idx", "suppress-while-processing");

  /** QEMU 2.0 main-loop device: the pop publishes the driver's current avail index. */
  public static QueuePolicy qemu20() {
    return new QueuePolicy() {
      @Override
      public String name() {
        return "qemu-2.0";
      }

      @Override
      public int pop(Virtqueue vq) {
        return vq.pop();
      }
    };
  }

  /** QEMU 2.0 x-data-plane {@code handle_notify}: disable, pop all, enable, re-check. */
  public static QueuePolicy qemu20Dataplane() {
    return new QueuePolicy() {
      @Override
      public String name() {
        return "qemu-2.0-dataplane";
      }

      @Override
      public int pop(Virtqueue vq) {
        return vq.pop();
      }

      @Override
      public void beforePopLoop(Virtqueue vq) {
        vq.disableNotify();
      }

      @Override
      public boolean afterPopLoop(Virtqueue vq) {
        // vring_enable_notification: avail_event = avail->idx (== last_avail_idx here, the ring
        // being empty) or clear NO_NOTIFY; true when more arrived
        return vq.enableNotify();
      }
    };
  }

  /** Later QEMU: the pop publishes {@code last_avail_idx}. */
  public static QueuePolicy lastAvailIdx() {
    return new QueuePolicy() {
      @Override
      public String name() {
        return "last-avail-idx";
      }

      @Override
      public int pop(Virtqueue vq) {
        return vq.popLastAvail();
      }
    };
  }

  /** QEMU 2.8 (2016): notifications off around the pop loop, last_avail_idx pop. */
  public static QueuePolicy suppressWhileProcessing() {
    return new QueuePolicy() {
      @Override
      public String name() {
        return "suppress-while-processing";
      }

      @Override
      public int pop(Virtqueue vq) {
        return vq.popLastAvail();
      }

      @Override
      public void beforePopLoop(Virtqueue vq) {
        vq.setNotification(false);
      }

      @Override
      public boolean afterPopLoop(Virtqueue vq) {
        vq.setNotification(true);
        return vq.hasAvail();
      }
    };
  }

  /** The built-in called {@code name}. */
  public static QueuePolicy named(String name) {
    return switch (name) {
      case "qemu-2.0" -> qemu20();
      case "qemu-2.0-dataplane" -> qemu20Dataplane();
      case "last-avail-idx" -> lastAvailIdx();
      case "suppress-while-processing" -> suppressWhileProcessing();
      default -> throw new IllegalArgumentException("unknown queue policy [" + name + "]; known: " + NAMES);
    };
  }
}

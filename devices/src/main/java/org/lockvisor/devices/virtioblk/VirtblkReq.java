package org.lockvisor.devices.virtioblk;

import org.lockvisor.devices.spi.BlockRequest;

/** Per-request driver state ({@code struct virtblk_req} of {@code drivers/block/virtio_blk.c}). */
final class VirtblkReq {
  BlockRequest request;
  int head = -1;
  boolean busy;
  boolean notify;
}

/**
 * virtio-blk as in Linux 3.13–3.16 (blk-mq, one hardware queue, vq_lock) over a 2014 QEMU
 * device model: the guest's {@code virtio_queue_rq} and {@code virtblk_done}, the notify exit
 * priced by a {@link org.lockvisor.devices.virtioblk.NotifyPath} (x86 in-kernel ioeventfd, or
 * exit to the userspace VMM under its global lock as on arm64 in 2014), the VMM's main-loop
 * thread, and a storage backend with a queue depth and a service time. See
 * {@code docs/plugins/virtio-blk.md}.
 */
package org.lockvisor.devices.virtioblk;

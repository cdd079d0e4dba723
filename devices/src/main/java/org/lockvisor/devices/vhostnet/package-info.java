/**
 * The {@code vhost-net} device plugin: virtio-net in a 3.0 guest over the host's vhost-net worker,
 * with the {@code vhost_work_queue} variants of seed R1 and a line-rate link to an ACKing peer.
 */
package org.lockvisor.devices.vhostnet;

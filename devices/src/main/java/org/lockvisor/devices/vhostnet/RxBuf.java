package org.lockvisor.devices.vhostnet;

/** A posted guest RX buffer: vhost's handle_rx fills it, the guest's virtnet_poll empties it. */
final class RxBuf {
  Packet content;
}

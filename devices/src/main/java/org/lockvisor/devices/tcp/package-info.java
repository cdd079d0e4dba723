/**
 * TCP sender mechanisms of the modelled 3.0.27 kernel that more than one sender model shares:
 * {@link org.lockvisor.devices.tcp.Cubic}, net/ipv4/tcp_cubic.c's congestion control, used by the
 * vhost-net guest-receive direction's external sender ({@code
 * org.lockvisor.devices.vhostnet.ExternalSender}) and by the iperf workload's guest-send sender
 * ({@code recovery: 3.0}, {@code org.lockvisor.workloads.iperf.SackSender}).
 *
 * <p>Framework code, not plugin API: a third-party device or workload builds against the SPI
 * packages only. Depends on the JDK alone; hot paths allocate nothing (state in primitive arrays
 * per flow).
 */
package org.lockvisor.devices.tcp;

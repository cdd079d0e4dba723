package org.lockvisor.workloads.iperf;

import static com.google.common.base.Preconditions.checkArgument;
import static org.lockvisor.arch.spi.CostKey.MEMCPY_PER_BYTE;
import static org.lockvisor.arch.spi.CostKey.SYSCALL;

import org.lockvisor.arch.spi.ArchCosts;

/**
 * Guest CPU costs of the TCP sender paths, in ns (copies in ps per byte). Estimates (tag [E],
 * ranges in the field docs) unless the arch profile prices them, under the keys
 * {@code iperf.<name>}; none is fitted to a reproduction. Locks, wakeups and the device's own
 * driver paths are priced elsewhere.
 *
 * @param userPerWriteNs iperf's own loop per write, user mode [E 100-500]
 * @param syscallNs system call entry and return [profile SYSCALL]
 * @param sendmsgNs {@code tcp_sendmsg} per call excluding the copy: skb allocation, lock_sock,
 *     tcp_push [E 300-1000]
 * @param copyPsPerByte {@code copy_from_user} per byte [profile MEMCPY_PER_BYTE]
 * @param segmentNs one TSO packet down the stack: {@code tcp_transmit_skb}, {@code ip_queue_xmit},
 *     {@code dev_queue_xmit} and the qdisc, excluding the driver [E 1000-2500]
 * @param ackNs {@code tcp_ack} for one ACK: clean the retransmit queue (free skbs), congestion
 *     control, window update [E 500-1500]
 * @param backlogNs {@code sk_add_backlog} when the socket is owned by the writer [E 50-200]
 */
public record IperfCosts(
    long userPerWriteNs,
    long syscallNs,
    long sendmsgNs,
    long copyPsPerByte,
    long segmentNs,
    long ackNs,
    long backlogNs) {

  public static final IperfCosts ESTIMATES = new IperfCosts(200, 70, 500, 100, 1500, 1000, 100);

  public IperfCosts {
    checkArgument(userPerWriteNs >= 0 && syscallNs >= 0 && sendmsgNs >= 0 && copyPsPerByte >= 0 && segmentNs >= 0
        && ackNs >= 0 && backlogNs >= 0, "iperf costs must not be negative: %s", this);
  }

  public static IperfCosts from(ArchCosts s) {
    IperfCosts e = ESTIMATES;
    return new IperfCosts(
        e.userPerWriteNs,
        s.ns(SYSCALL),
        e.sendmsgNs,
        Math.round(s.table().value(MEMCPY_PER_BYTE) * 1000),
        e.segmentNs,
        e.ackNs,
        e.backlogNs);
  }

  public long copyNs(long bytes) {
    return bytes * copyPsPerByte / 1000;
  }
}

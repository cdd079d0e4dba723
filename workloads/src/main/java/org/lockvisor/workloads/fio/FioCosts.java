package org.lockvisor.workloads.fio;

import static com.google.common.base.Preconditions.checkArgument;

import org.lockvisor.arch.spi.CostKey;
import org.lockvisor.arch.spi.ArchCosts;

/**
 * Guest CPU costs of fio's I/O path outside the device driver, in ns (the driver's own costs
 * belong to the device), derived from the arch profile's cost table by {@link #from(ArchCosts)}.
 *
 * @param syscallNs one system call round trip (entry/exit): {@code SYSCALL}
 * @param submitPerIoNs kernel per request on submission above the driver: aio iocb setup,
 *     direct-I/O bio construction, {@code blk_mq_make_request}: {@code AIO_SUBMIT_PER_IO}
 * @param reapPerIoNs kernel per event in {@code io_getevents}: {@code AIO_REAP_PER_IO}
 * @param userPerIoNs fio's own user-space work per I/O: {@code BENCH_USER_PER_IO}
 */
public record FioCosts(long syscallNs, long submitPerIoNs, long reapPerIoNs, long userPerIoNs) {

  public FioCosts {
    checkArgument(syscallNs >= 0 && submitPerIoNs >= 0 && reapPerIoNs >= 0 && userPerIoNs >= 0,
        "fio costs must not be negative: %s", this);
  }

  /** The costs of the profile behind {@code s}. */
  public static FioCosts from(ArchCosts s) {
    return new FioCosts(
        s.ns(CostKey.SYSCALL),
        s.ns(CostKey.AIO_SUBMIT_PER_IO),
        s.ns(CostKey.AIO_REAP_PER_IO),
        s.ns(CostKey.BENCH_USER_PER_IO));
  }
}

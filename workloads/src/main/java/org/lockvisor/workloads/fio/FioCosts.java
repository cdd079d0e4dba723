package org.lockvisor.workloads.fio;

import static com.google.common.base.Preconditions.checkArgument;

import org.lockvisor.devices.spi.CostSource;

/**
 * Guest CPU costs of fio's I/O path outside the device driver, in ns (the driver's own costs
 * belong to the device). Defaults are estimates; the composition root fills them from the arch
 * profile through {@link #from(CostSource)} under the keys {@code fio.<field>}.
 *
 * @param syscallNs one system call round trip (entry/exit) [M: KERNEL-MODEL 10, 50-150]
 * @param submitPerIoNs kernel per request on submission above the driver: aio iocb setup,
 *     direct-I/O bio construction, {@code blk_mq_make_request} [E]
 * @param reapPerIoNs kernel per event in {@code io_getevents} (copy of the io_event) [E]
 * @param userPerIoNs fio's own user-space work per I/O (io_u handling, offsets, accounting) [E]
 */
public record FioCosts(long syscallNs, long submitPerIoNs, long reapPerIoNs, long userPerIoNs) {

  public static final FioCosts ESTIMATES = new FioCosts(70, 1000, 200, 1000);

  public FioCosts {
    checkArgument(syscallNs >= 0 && submitPerIoNs >= 0 && reapPerIoNs >= 0 && userPerIoNs >= 0,
        "fio costs must not be negative: %s", this);
  }

  public static FioCosts from(CostSource s) {
    FioCosts e = ESTIMATES;
    return new FioCosts(
        s.cost("fio.syscall-ns", e.syscallNs),
        s.cost("fio.submit-per-io-ns", e.submitPerIoNs),
        s.cost("fio.reap-per-io-ns", e.reapPerIoNs),
        s.cost("fio.user-per-io-ns", e.userPerIoNs));
  }
}

/**
 * fio as a workload: numjobs guest tasks doing direct block I/O through libaio (io_submit of
 * batches, io_getevents) or psync (one pread/pwrite at a time), with fio's IOPS, bandwidth and
 * completion-latency figures and a fio-shaped JSON report. See {@code docs/plugins/fio.md}.
 */
package org.lockvisor.workloads.fio;

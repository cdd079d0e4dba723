package org.lockvisor.workloads.fio;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * fio job options (the subset that shapes the I/O stream), named as in fio.
 *
 * @param numjobs identical jobs, one guest task each
 * @param rw randread, read, randwrite or write
 * @param bs block size in bytes
 * @param ioengine libaio or psync
 * @param iodepth requests in flight per job (libaio)
 * @param iodepthBatch requests per io_submit (fio's iodepth_batch_submit; 1 submits each as it is ready)
 * @param iodepthBatchCompleteMin min_nr of io_getevents (fio's iodepth_batch_complete_min)
 * @param iodepthBatchCompleteMax nr of io_getevents; 0 means iodepth
 * @param filename the block device's instance name; empty for the VM's only block device
 * @param sizeBytes span of the device the offsets fall in
 * @param numberIos I/Os each job completes before it exits (fio's {@code number_ios}); 0: the
 *     job runs until the experiment stops it (time-based)
 * @param logAvgNs fio's {@code write_bw_log} and {@code write_iops_log} with {@code log_avg_msec}:
 *     period of the averaged log entries (whole milliseconds); 0 writes no logs
 */
public record FioConfig(
    int numjobs,
    String rw,
    int bs,
    String ioengine,
    int iodepth,
    int iodepthBatch,
    int iodepthBatchCompleteMin,
    int iodepthBatchCompleteMax,
    String filename,
    long sizeBytes,
    long numberIos,
    long logAvgNs) {

  public FioConfig {
    checkArgument(numjobs > 0, "numjobs must be positive: %s", numjobs);
    checkArgument(rw.equals("randread") || rw.equals("read") || rw.equals("randwrite") || rw.equals("write"),
        "rw [%s] is not one of [randread, read, randwrite, write]", rw);
    checkArgument(bs > 0 && bs % 512 == 0, "bs must be a positive multiple of 512: %s", bs);
    checkArgument(ioengine.equals("libaio") || ioengine.equals("psync"),
        "ioengine [%s] is not one of [libaio, psync]", ioengine);
    checkArgument(iodepth > 0, "iodepth must be positive: %s", iodepth);
    checkArgument(iodepthBatch > 0 && iodepthBatch <= iodepth, "iodepth-batch must be in [1, iodepth]: %s", iodepthBatch);
    checkArgument(iodepthBatchCompleteMin > 0 && iodepthBatchCompleteMin <= iodepth,
        "iodepth-batch-complete-min must be in [1, iodepth]: %s", iodepthBatchCompleteMin);
    checkArgument(iodepthBatchCompleteMax >= 0 && iodepthBatchCompleteMax <= iodepth,
        "iodepth-batch-complete-max must be in [0, iodepth]: %s", iodepthBatchCompleteMax);
    checkArgument(sizeBytes >= bs, "size must hold at least one block: %s", sizeBytes);
    checkArgument(numberIos >= 0, "number-ios must not be negative: %s", numberIos);
    checkArgument(logAvgNs >= 0 && logAvgNs % 1_000_000 == 0,
        "log-avg must be 0 or whole milliseconds (fio's log_avg_msec): %s ns", logAvgNs);
    filename = filename == null ? "" : filename;
  }

  /** Without logs. */
  public FioConfig(int numjobs, String rw, int bs, String ioengine, int iodepth, int iodepthBatch,
      int iodepthBatchCompleteMin, int iodepthBatchCompleteMax, String filename, long sizeBytes, long numberIos) {
    this(numjobs, rw, bs, ioengine, iodepth, iodepthBatch, iodepthBatchCompleteMin, iodepthBatchCompleteMax, filename,
        sizeBytes, numberIos, 0);
  }

  /** A time-based job (no {@code number_ios}). */
  public FioConfig(int numjobs, String rw, int bs, String ioengine, int iodepth, int iodepthBatch,
      int iodepthBatchCompleteMin, int iodepthBatchCompleteMax, String filename, long sizeBytes) {
    this(numjobs, rw, bs, ioengine, iodepth, iodepthBatch, iodepthBatchCompleteMin, iodepthBatchCompleteMax, filename,
        sizeBytes, 0);
  }

  /** fio's defaults with the given job shape. */
  public static FioConfig libaio(int numjobs, String rw, int iodepth) {
    return new FioConfig(numjobs, rw, 4096, "libaio", iodepth, 1, 1, 0, "", 1L << 30);
  }

  public static FioConfig psync(int numjobs, String rw) {
    return new FioConfig(numjobs, rw, 4096, "psync", 1, 1, 1, 0, "", 1L << 30);
  }

  public boolean reads() {
    return rw.endsWith("read");
  }

  public boolean random() {
    return rw.startsWith("rand");
  }

  public int completeMax() {
    return iodepthBatchCompleteMax == 0 ? iodepth : iodepthBatchCompleteMax;
  }
}

package org.lockvisor.workloads.fio;

import com.google.auto.service.AutoService;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.lockvisor.core.plugin.BoundOptions;
import org.lockvisor.core.plugin.OptionBinder;
import org.lockvisor.core.plugin.PluginOption;
import org.lockvisor.workloads.spi.Workload;
import org.lockvisor.workloads.spi.WorkloadContext;
import org.lockvisor.workloads.spi.WorkloadFactory;

/** Plugin entry for {@link FioWorkload}. */
@AutoService(WorkloadFactory.class)
public final class FioFactory implements WorkloadFactory {
  static final String NAME = "fio";

  private static final List<PluginOption> OPTIONS = List.of(
      PluginOption.ofInt("numjobs", 1, 1, 4096, "identical jobs, one guest task each"),
      PluginOption.ofEnum("rw", "randread", "I/O pattern", "randread", "read", "randwrite", "write"),
      PluginOption.ofInt("bs", 4096, 512, 16L << 20, "block size in bytes (multiple of 512)"),
      PluginOption.ofEnum("ioengine", "libaio", "libaio (io_submit/io_getevents) or psync (pread/pwrite)",
          "libaio", "psync"),
      PluginOption.ofInt("iodepth", 1, 1, 65536, "I/Os in flight per job (libaio)"),
      PluginOption.ofInt("iodepth-batch", 1, 1, 65536, "I/Os per io_submit (fio iodepth_batch_submit)"),
      PluginOption.ofInt("iodepth-batch-complete-min", 1, 1, 65536, "min_nr of io_getevents"),
      PluginOption.ofInt("iodepth-batch-complete-max", 0, 0, 65536, "nr of io_getevents; 0: iodepth"),
      new PluginOption("filename", PluginOption.Type.STRING, "",
          "block device instance name; empty: the VM's only block device", List.of(), 0, 0),
      PluginOption.ofInt("size", 1L << 30, 512, Long.MAX_VALUE, "bytes of the device the offsets span"),
      PluginOption.ofInt("number-ios", 0, 0, Long.MAX_VALUE,
          "I/Os each job completes, then it exits (fio number_ios); 0: run until the experiment stops it"),
      PluginOption.ofDuration("log-avg", 0, 0, 3_600_000_000_000L,
          "fio write_bw_log + write_iops_log with log_avg_msec: period of the averaged entries"
              + " (whole ms); 0: no log files"));

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public String summary() {
    return "fio direct I/O jobs (libaio with iodepth and batching, or psync) reporting IOPS and clat percentiles";
  }

  @Override
  public Set<String> capabilities() {
    return Set.of("block", "native-report", FINISHES);
  }

  @Override
  public List<PluginOption> options() {
    return OPTIONS;
  }

  @Override
  public Workload create(WorkloadContext context) {
    return new FioWorkload(context.name(), config(context.options()));
  }

  /** The validated configuration for {@code options}, bound by the framework's binder (tests, tools). */
  public static FioConfig config(Map<String, String> options) {
    return config(OptionBinder.bind(new FioFactory(), options == null ? Map.of() : options));
  }

  /** The configuration of options bound against {@link #options()}. */
  public static FioConfig config(BoundOptions o) {
    return new FioConfig(
        (int) o.integer("numjobs"),
        o.string("rw"),
        (int) o.integer("bs"),
        o.string("ioengine"),
        (int) o.integer("iodepth"),
        (int) o.integer("iodepth-batch"),
        (int) o.integer("iodepth-batch-complete-min"),
        (int) o.integer("iodepth-batch-complete-max"),
        o.string("filename"),
        o.integer("size"),
        o.integer("number-ios"),
        o.integer("log-avg"));
  }
}

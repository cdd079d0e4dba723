package org.lockvisor.workloads.fio;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.lockvisor.devices.spi.BlockRequest;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Task;

/**
 * The fio workload's report in the layout of fio 3.33's {@code --output-format=json+}
 * ({@code stat.c}: {@code show_thread_status_json}, {@code add_ddir_status_json}, {@code
 * add_ddir_lat_json}, {@code json_add_disk_util}), so that fio's own {@code
 * fio_jsonplus_clat2csv} and scripts written for fio read it unchanged. Every job prints the four
 * blocks {@code read}, {@code write}, {@code trim} and {@code sync} as fio does (all-zero where the
 * job does no such I/O); a latency block carries {@code percentile} and {@code bins} only when it
 * has samples, as fio's does.
 *
 * <p>Where the values come from, as fio measures them:
 * <ul>
 *   <li>{@code slat_ns}: from fio's {@code get_io_u} (the I/O's preparation) to the return of
 *       {@code io_submit} ({@code fio_libaio_queued} sets {@code issue_time} there); none for psync,
 *       as for fio's synchronous engines. {@code clat_ns}: from {@code issue_time} to the reap of
 *       the event. {@code lat_ns}: from the preparation to the reap (what the workload's {@code
 *       clat_*} figures measure).
 *   <li>{@code bw_*} and {@code iops_*}: one sample per job every 500 ms ({@code bwavgtime} and
 *       {@code iopsavgtime} defaults), so a window shorter than 500 ms has none ({@code
 *       bw_samples: 0}), as with fio.
 *   <li>{@code iodepth_level} ({@code io_u_mark_depth}: the depth after each commit, weighted by
 *       the I/Os committed), {@code iodepth_submit} and {@code iodepth_complete} ({@code
 *       __io_u_mark_map} of the I/Os per {@code io_submit} and per reap), {@code latency_ns/us/ms}
 *       ({@code io_u_mark_latency} of each clat).
 *   <li>{@code usr_cpu}, {@code sys_cpu}: the job task's user and kernel CPU time over the window
 *       as a share of its runtime; {@code ctx}: its voluntary and involuntary context switches.
 *       {@code majf}, {@code minf}: 0 (page faults are not modelled).
 *   <li>{@code disk_util}: the guest's {@code /proc/diskstats} view of the device over the
 *       window: I/Os completed by the device, {@code *_ticks} the time from preparation to device
 *       completion summed over I/Os (ms), {@code util} the share of the window with at least one
 *       I/O at the device; no merges (the model does not merge requests).
 *   <li>{@code timestamp}, {@code time}: simulated time, counted from the Unix epoch at the start
 *       of the simulation, so that two runs give identical files.
 * </ul>
 */
public final class FioJson {
  /** fio's default {@code percentile_list}. */
  static final double[] PERCENTILES = {1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99};
  /** fio's {@code bwavgtime} and {@code iopsavgtime} defaults. */
  static final long AVG_TIME_NS = 500_000_000L;
  private static final String[] LAT_RANGES = {"2", "4", "10", "20", "50", "100", "250", "500", "750", "1000"};
  private static final String[] LAT_MS_RANGES = {"2", "4", "10", "20", "50", "100", "250", "500", "750", "1000",
      "2000", ">=2000"};
  private static final DateTimeFormatter CTIME =
      DateTimeFormatter.ofPattern("EEE MMM ppd HH:mm:ss yyyy", Locale.ROOT).withZone(ZoneOffset.UTC);

  /**
   * Key of the fio log files in the report (file suffix to content); not part of fio's JSON: the
   * run writes each as {@code fio-<vm>-<name><suffix>} and leaves the key out of the JSON file.
   */
  public static final String LOGS = "lockvisor_log_files";

  private FioJson() {}

  /** A request slot's fio state: the issue time of the I/O it holds. */
  static final class Slot {
    long issueNs;
  }

  /** One job's statistics since the end of warm-up, recorded without allocation. */
  static final class JobStats {
    final FioStat slat = new FioStat(true);
    final FioStat clat = new FioStat(true);
    final FioStat lat = new FioStat(true);
    final FioStat bw = new FioStat(false);
    final FioStat iops = new FioStat(false);
    final long[] depthMap = new long[7];
    final long[] submitMap = new long[7];
    final long[] completeMap = new long[7];
    final long[] latN = new long[10];
    final long[] latU = new long[10];
    final long[] latM = new long[12];
    long queued;
    long totalSubmit;
    long totalComplete;
    long nextSampleNs;
    long lastSampleNs;
    long lastBytes;
    long lastIos;
    long userBaseNs;
    long cpuBaseNs;
    long ctxBase;
    /** {@code write_bw_log}/{@code write_iops_log} with {@code log_avg_msec}: period (0: no logs) and entries. */
    long logPeriodNs;
    long windowStartNs;
    long nextLogNs;
    long lastLogNs;
    long lastLogBytes;
    long lastLogIos;
    /** Triples (ms since the window's start, KiB/s, IO/s). */
    long[] log = new long[0];
    int logLength;

    void reset(long now, Task task, Machine machine) {
      for (FioStat s : new FioStat[] {slat, clat, lat, bw, iops}) {
        s.reset();
      }
      for (long[] a : new long[][] {depthMap, submitMap, completeMap, latN, latU, latM}) {
        java.util.Arrays.fill(a, 0);
      }
      queued = totalSubmit = totalComplete = 0;
      lastSampleNs = now;
      nextSampleNs = now + AVG_TIME_NS;
      lastBytes = lastIos = 0;
      long[] cpu = cpu(task, machine);
      userBaseNs = cpu[0];
      cpuBaseNs = cpu[1];
      ctxBase = task.voluntarySwitches() + task.involuntarySwitches();
      windowStartNs = lastLogNs = now;
      nextLogNs = now + logPeriodNs;
      lastLogBytes = lastLogIos = 0;
      logLength = 0;
    }

    /** {@code io_u_mark_depth} after a commit of {@code n} I/Os that left {@code depth} in flight. */
    void queued(int n, int depth) {
      queued += n;
      int idx = depth >= 64 ? 6 : depth >= 32 ? 5 : depth >= 16 ? 4 : depth >= 8 ? 3 : depth >= 4 ? 2 : depth >= 2 ? 1 : 0;
      depthMap[idx] += n;
    }

    /** {@code io_u_mark_submit}. */
    void submitted(int n) {
      submitMap[mapIndex(n)]++;
      totalSubmit++;
    }

    /** One I/O reaped: its clat and lat, and {@code io_u_mark_latency} of the clat. */
    void completed(long clatNs, long latNs) {
      clat.add(clatNs);
      lat.add(latNs);
      long v = Math.max(0, clatNs);
      if (v < 1000) {
        latN[bucket(v)]++;
      } else if (v < 1_000_000) {
        latU[bucket(v / 1000)]++;
      } else {
        long ms = v / 1_000_000;
        latM[ms >= 2000 ? 11 : ms >= 1000 ? 10 : bucket(ms)]++;
      }
    }

    /** {@code n} events reaped ({@code io_u_mark_complete}); takes the 500 ms bandwidth samples due. */
    void reaped(int n, long bytes, long ios, long now) {
      if (n > 0) {
        completeMap[mapIndex(n)]++;
        totalComplete++;
      }
      if (logPeriodNs > 0 && now >= nextLogNs) {
        logEntry(bytes, ios, now);
      }
      if (now >= nextSampleNs) {
        double spentMs = (now - lastSampleNs) / 1e6;
        bw.add((long) ((bytes - lastBytes) * 1000 / spentMs / 1024));
        iops.add((long) ((ios - lastIos) * 1000 / spentMs));
        lastBytes = bytes;
        lastIos = ios;
        lastSampleNs = now;
        nextSampleNs = now + AVG_TIME_NS;
      }
    }

    /**
     * One averaged log entry ({@code add_log_sample} with {@code log_avg_msec}): the rate since the
     * last entry, stamped with the period boundary it closes, in whole ms since the window's start.
     */
    private void logEntry(long bytes, long ios, long now) {
      double spentNs = now - lastLogNs;
      long boundary = nextLogNs;
      if (logLength + 3 > log.length) {
        log = java.util.Arrays.copyOf(log, Math.max(48, log.length * 2));
      }
      log[logLength++] = (boundary - windowStartNs) / 1_000_000L;
      log[logLength++] = (long) ((bytes - lastLogBytes) * 1e9 / spentNs / 1024);
      log[logLength++] = (long) ((ios - lastLogIos) * 1e9 / spentNs);
      lastLogBytes = bytes;
      lastLogIos = ios;
      lastLogNs = now;
      while (nextLogNs <= now) {
        nextLogNs += logPeriodNs;
      }
    }

    /**
     * fio's log file lines ({@code flush_samples}, fio 3.33: {@code time, value, ddir, bs,
     * prio}; bs 0 in an averaged log) of the bandwidth ({@code which} 1, KiB/s) or IOPS (2).
     */
    String logText(int which, int ddir) {
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < logLength; i += 3) {
        sb.append(log[i]).append(", ").append(log[i + which]).append(", ").append(ddir).append(", 0, 0\n");
      }
      return sb.toString();
    }

    /** {@code __io_u_mark_map}'s buckets: 0, 1-4, 5-8, 9-16, 17-32, 33-64, more. */
    private static int mapIndex(int n) {
      return n > 64 ? 6 : n > 32 ? 5 : n > 16 ? 4 : n > 8 ? 3 : n > 4 ? 2 : n > 0 ? 1 : 0;
    }

    /** {@code io_u_mark_lat_nsec/usec/msec}'s buckets below 1000. */
    private static int bucket(long v) {
      return v >= 750 ? 9 : v >= 500 ? 8 : v >= 250 ? 7 : v >= 100 ? 6 : v >= 50 ? 5 : v >= 20 ? 4 : v >= 10 ? 3
          : v >= 4 ? 2 : v >= 2 ? 1 : 0;
    }
  }

  /** The guest's {@code /proc/diskstats} of the device, as far as this workload's I/O goes. */
  static final class DiskStats {
    long readIos;
    long writeIos;
    long readTicksNs;
    long writeTicksNs;
    long busyNs;
    int inFlight;
    long busySince;

    void reset(long now) {
      readIos = writeIos = readTicksNs = writeTicksNs = busyNs = 0;
      busySince = now;
    }

    void dispatched(int n, long now) {
      if (inFlight == 0) {
        busySince = now;
      }
      inFlight += n;
    }

    void complete(BlockRequest r, long now) {
      if (r.direction() == BlockRequest.Direction.READ) {
        readIos++;
        readTicksNs += now - r.submitNs();
      } else {
        writeIos++;
        writeTicksNs += now - r.submitNs();
      }
      if (--inFlight == 0) {
        busyNs += now - busySince;
      }
    }

    long busyUntil(long now, long since) {
      return busyNs + (inFlight > 0 ? now - Math.max(busySince, since) : 0);
    }
  }

  /** User and total CPU time of {@code task} so far (ns). */
  private static long[] cpu(Task task, Machine machine) {
    long[] out = new long[2];
    int id = task.id();
    var symbols = machine.symbols();
    machine.account().forEachOfThread(id, (cpuId, threadId, stack, ns) -> {
      out[1] += ns;
      if (symbols.tag(symbols.leaf(stack)) == Machine.DOMAIN_USER) {
        out[0] += ns;
      }
    });
    return out;
  }

  static Map<String, Object> report(String name, FioConfig config, List<JobStats> jobs, List<Task> tasks,
      Machine machine, long since, long end, String diskName, DiskStats disk) {
    long runtimeNs = Math.max(1, end - since);
    long runtimeMs = runtimeNs / 1_000_000;
    long groupBytesPerS = 0;
    for (JobStats j : jobs) {
      groupBytesPerS += (long) (j.lat.samples() * config.bs() * 1e9 / runtimeNs);
    }
    List<Object> jobList = new ArrayList<>();
    for (int i = 0; i < jobs.size(); i++) {
      JobStats j = jobs.get(i);
      Task task = tasks.get(i);
      Map<String, Object> job = new LinkedHashMap<>();
      job.put("jobname", name);
      job.put("groupid", 0);
      job.put("error", 0);
      job.put("eta", 0);
      job.put("elapsed", (end + 999_999_999L) / 1_000_000_000L);
      job.put("job options", jobOptions(config));
      job.put("read", direction(config.reads() ? j : null, config, runtimeNs, groupBytesPerS));
      job.put("write", direction(config.reads() ? null : j, config, runtimeNs, groupBytesPerS));
      job.put("trim", direction(null, config, runtimeNs, groupBytesPerS));
      Map<String, Object> sync = new LinkedHashMap<>();
      sync.put("total_ios", 0);
      sync.put("lat_ns", new FioStat(true).json(PERCENTILES));
      job.put("sync", sync);
      long[] cpu = cpu(task, machine);
      double usr = 100.0 * (cpu[0] - j.userBaseNs) / runtimeNs;
      double sys = 100.0 * ((cpu[1] - j.cpuBaseNs) - (cpu[0] - j.userBaseNs)) / runtimeNs;
      job.put("job_runtime", runtimeMs);
      job.put("usr_cpu", usr);
      job.put("sys_cpu", sys);
      job.put("ctx", task.voluntarySwitches() + task.involuntarySwitches() - j.ctxBase);
      job.put("majf", 0);
      job.put("minf", 0);
      job.put("iodepth_level", dist(j.depthMap, j.queued, new String[] {"1", "2", "4", "8", "16", "32", ">=64"}));
      String[] mapKeys = {"0", "4", "8", "16", "32", "64", ">=64"};
      job.put("iodepth_submit", dist(j.submitMap, j.totalSubmit, mapKeys));
      job.put("iodepth_complete", dist(j.completeMap, j.totalComplete, mapKeys));
      long total = j.queued;
      job.put("latency_ns", dist(j.latN, total, LAT_RANGES));
      job.put("latency_us", dist(j.latU, total, LAT_RANGES));
      job.put("latency_ms", dist(j.latM, total, LAT_MS_RANGES));
      job.put("latency_depth", config.ioengine().equals("psync") ? 1 : config.iodepth());
      job.put("latency_target", 0);
      job.put("latency_percentile", 100.0);
      job.put("latency_window", 0);
      jobList.add(job);
    }
    Map<String, Object> report = new LinkedHashMap<>();
    report.put("fio version", "lockvisor-fio-model");
    long endMs = end / 1_000_000;
    report.put("timestamp", endMs / 1000);
    report.put("timestamp_ms", endMs);
    report.put("time", CTIME.format(Instant.ofEpochMilli(endMs)));
    report.put("jobs", jobList);
    Map<String, Object> du = new LinkedHashMap<>();
    du.put("name", diskName);
    du.put("read_ios", disk.readIos);
    du.put("write_ios", disk.writeIos);
    du.put("read_merges", 0);
    du.put("write_merges", 0);
    du.put("read_ticks", disk.readTicksNs / 1_000_000);
    du.put("write_ticks", disk.writeTicksNs / 1_000_000);
    du.put("in_queue", (disk.readTicksNs + disk.writeTicksNs) / 1_000_000);
    du.put("util", Math.min(100.0, 100.0 * disk.busyUntil(end, since) / runtimeNs));
    report.put("disk_util", List.of(du));
    if (config.logAvgNs() > 0) {
      Map<String, Object> logs = new LinkedHashMap<>();
      int ddir = config.reads() ? 0 : 1;
      for (int i = 0; i < jobs.size(); i++) {
        logs.put("_bw." + (i + 1) + ".log", jobs.get(i).logText(1, ddir));
        logs.put("_iops." + (i + 1) + ".log", jobs.get(i).logText(2, ddir));
      }
      report.put(LOGS, logs);
    }
    return report;
  }

  private static Map<String, Object> jobOptions(FioConfig config) {
    Map<String, Object> o = new LinkedHashMap<>();
    o.put("rw", config.rw());
    o.put("bs", Integer.toString(config.bs()));
    o.put("ioengine", config.ioengine());
    o.put("iodepth", Integer.toString(config.iodepth()));
    o.put("direct", "1");
    o.put("numjobs", Integer.toString(config.numjobs()));
    o.put("size", Long.toString(config.sizeBytes()));
    if (config.numberIos() > 0) {
      o.put("number_ios", Long.toString(config.numberIos()));
    }
    return o;
  }

  /**
   * {@code add_ddir_status_json} of one data direction; {@code j == null}: a direction with no I/O.
   * Rates divide by the exact window ({@code runtimeNs}); fio divides by whole milliseconds, which
   * would be off by up to one millisecond in a window of a few.
   */
  private static Map<String, Object> direction(JobStats j, FioConfig config, long runtimeNs, long groupBytesPerS) {
    long ios = j == null ? 0 : j.lat.samples();
    long bytes = ios * config.bs();
    long runtime = j == null ? 0 : runtimeNs / 1_000_000;
    long bwBytes = j == null ? 0 : (long) (bytes * 1e9 / runtimeNs);
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("io_bytes", bytes);
    d.put("io_kbytes", bytes >> 10);
    d.put("bw_bytes", bwBytes);
    d.put("bw", bwBytes / 1024);
    d.put("iops", j == null ? 0.0 : ios * 1e9 / runtimeNs);
    d.put("runtime", runtime);
    d.put("total_ios", ios);
    d.put("short_ios", 0);
    d.put("drop_ios", 0);
    d.put("slat_ns", (j == null ? new FioStat(true) : j.slat).json(PERCENTILES_OFF));
    d.put("clat_ns", (j == null ? new FioStat(true) : j.clat).json(PERCENTILES));
    d.put("lat_ns", (j == null ? new FioStat(true) : j.lat).json(PERCENTILES_OFF));
    FioStat bw = j == null ? new FioStat(false) : j.bw;
    FioStat iops = j == null ? new FioStat(false) : j.iops;
    d.put("bw_min", bw.min());
    d.put("bw_max", bw.max());
    d.put("bw_agg", bw.samples() == 0 || groupBytesPerS == 0 ? 0.0 : bw.mean() * 100 / (groupBytesPerS / 1024.0));
    d.put("bw_mean", bw.mean());
    d.put("bw_dev", bw.stddev());
    d.put("bw_samples", bw.samples());
    d.put("iops_min", iops.min());
    d.put("iops_max", iops.max());
    d.put("iops_mean", iops.mean());
    d.put("iops_stddev", iops.stddev());
    d.put("iops_samples", iops.samples());
    return d;
  }

  /** slat and lat have no percentiles by default ({@code slat_percentiles}, {@code lat_percentiles} off). */
  private static final double[] PERCENTILES_OFF = null;

  /** {@code stat_calc_dist}: each bucket as a percentage of {@code total}. */
  private static Map<String, Object> dist(long[] counts, long total, String[] keys) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < keys.length; i++) {
      m.put(keys[i], total == 0 ? 0.0 : Math.min(100.0, 100.0 * counts[i] / total));
    }
    return m;
  }
}

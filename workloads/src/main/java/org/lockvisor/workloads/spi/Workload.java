package org.lockvisor.workloads.spi;

import com.google.common.collect.ImmutableMap;
import java.util.Map;
import java.util.Optional;

/**
 * A benchmark running in one VM: it spawns its guest tasks when started and reports its own
 * figures, named and shaped like the tool's output (fio: IOPS and latency percentiles; iperf:
 * Gbps).
 *
 * <p>Life cycle: {@link #start} once before the simulation runs; {@link #resetStats()} at the
 * end of warm-up; {@link #figures()} and {@link #nativeReport()} at the end.
 */
public interface Workload {

  /** Instance name, e.g. {@code fio0}. */
  String name();

  /** Plugin name, e.g. {@code fio}. */
  String model();

  /** Spawns the workload's guest tasks into {@code context.vm()} using its devices. */
  void start(WorkloadContext context);

  /** Forgets what was measured so far (end of warm-up); the measurement window starts now. */
  void resetStats();

  /**
   * The headline figures over the measurement window, in a stable order, e.g. {@code iops},
   * {@code bw_kib_s}, {@code clat_p99_ns}.
   */
  ImmutableMap<String, Number> figures();

  /**
   * The tool's own report as a JSON-ready structure of maps, lists, strings and numbers (e.g.
   * fio's {@code --output-format=json}), if the workload has one.
   */
  default Optional<Map<String, Object>> nativeReport() {
    return Optional.empty();
  }
}

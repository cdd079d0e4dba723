package org.lockvisor.workloads.spi;

import com.google.common.collect.ImmutableMap;
import java.util.Map;
import java.util.Optional;
import org.lockvisor.core.plugin.Footprint;

/**
 * A benchmark running in one VM: it spawns its guest tasks when started and reports its own
 * figures, named and shaped like the tool's output (fio: IOPS and latency percentiles; iperf:
 * Gbps).
 *
 * <p>Life cycle: {@link #start} once before the simulation runs; {@link #resetStats()} at the
 * end of warm-up; {@link #figures()} and {@link #nativeReport()} at the end.
 *
 * <p>Most workloads run until the experiment stops them (a fixed duration). One that does a fixed
 * amount of work and ends on its own, like {@code perf bench sched messaging}, says so with
 * {@link #finishes()} and reports when it ended with {@link #finishedNs()}, so an experiment can
 * run it to completion ({@code duration: until-done}). The runner reads these between slices of
 * simulated time, never per event: they must be cheap and must not change the simulation.
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
   * The figure that counts the workload's tasks (fio jobs, locktorture writers, ...) that did no
   * work at all in the measurement window: its other figures are then the busy tasks' alone, and
   * lockvisor warns of it. A workload that can tell reports it among its {@link #figures()}.
   */
  String IDLE_TASKS = "idle_tasks";

  /**
   * The headline figures over the measurement window, in a stable order, e.g. {@code iops},
   * {@code bw_kib_s}, {@code clat_p99_ns}; {@link #IDLE_TASKS} where the workload can tell.
   */
  ImmutableMap<String, Number> figures();

  /**
   * The tool's own report as a JSON-ready structure of maps, lists, strings and numbers (e.g.
   * fio's {@code --output-format=json}), if the workload has one.
   */
  default Optional<Map<String, Object>> nativeReport() {
    return Optional.empty();
  }

  /**
   * Whether this workload, as configured, ends on its own after a fixed amount of work. False
   * (the default): it runs until the experiment stops it, and {@code duration: until-done}
   * refuses it.
   */
  default boolean finishes() {
    return false;
  }

  /**
   * The simulated time (ns since the simulation began) at which the workload ended, or -1 while
   * it runs (always -1 for a workload that never {@link #finishes()}).
   */
  default long finishedNs() {
    return -1;
  }

  /**
   * What {@link #start} will allocate, estimated from the configuration alone (called after the
   * factory created the workload and before it starts): tasks, pipes, requests in flight. The
   * runner refuses an experiment whose estimate exceeds the memory limit before building
   * anything. {@link Footprint#NONE} (the default): nothing worth counting.
   */
  default Footprint footprint() {
    return Footprint.NONE;
  }

  /** Whether the workload has ended: {@link #finishedNs()} is known. */
  default boolean finished() {
    return finishedNs() >= 0;
  }
}

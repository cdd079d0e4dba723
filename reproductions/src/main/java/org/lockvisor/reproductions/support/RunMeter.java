package org.lockvisor.reproductions.support;

import static com.google.common.base.Preconditions.checkArgument;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;
import org.lockvisor.reproductions.api.ReproductionResult;

/**
 * The simulator's own speed during a reproduction: per internal machine run (one simulation from
 * construction to its last event), the events it processed, the simulated time, the wall-clock
 * and thread-CPU time it took and the events per second of each. A reproduction measures each run
 * through {@link #measure} (safe from several threads: each run is timed on the thread that runs
 * it) and hands its result to {@link #attach}, which adds a {@code runs} list and a {@code
 * simulator} summary to the JSON data and one line to the report.
 *
 * <p>Wall-clock and CPU figures differ between identical runs; events and simulated time do not.
 */
public final class RunMeter {

  /** One measured machine run. */
  public record Run(String label, long events, long simulatedNs, long wallNs, long cpuNs) {
    /** Events per wall-clock second (0 when no time was measured). */
    public long eventsPerSecond() {
      return perSecond(events, wallNs);
    }

    /** Events per second of the running thread's CPU time (0 when unavailable). */
    public long eventsPerCpuSecond() {
      return perSecond(events, cpuNs);
    }

    Map<String, Object> json() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("label", label);
      m.put("events", events);
      m.put("simulated_ns", simulatedNs);
      m.put("wall_ns", wallNs);
      m.put("events_per_s", eventsPerSecond());
      m.put("cpu_ns", cpuNs);
      m.put("events_per_cpu_s", eventsPerCpuSecond());
      return m;
    }
  }

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  private final List<Run> runs = new ArrayList<>();

  /**
   * Runs {@code run} on the calling thread, timing it, and records its events and simulated time
   * as read from the returned value.
   *
   * @param label unique name of the run within the reproduction (runs are listed sorted by it)
   */
  public <T> T measure(String label, Supplier<T> run, ToLongFunction<T> events, ToLongFunction<T> simulatedNs) {
    checkArgument(label != null && !label.isBlank(), "a run needs a label");
    long cpu0 = cpuNow();
    long wall0 = System.nanoTime();
    T result = run.get();
    long wall = System.nanoTime() - wall0;
    long cpu = cpu0 < 0 ? 0 : Math.max(0, cpuNow() - cpu0);
    add(new Run(label, events.applyAsLong(result), simulatedNs.applyAsLong(result), wall, cpu));
    return result;
  }

  /** Records a run measured elsewhere. */
  public synchronized void add(Run run) {
    runs.add(run);
  }

  /** The runs so far, sorted by label (deterministic whatever the threads' order). */
  public synchronized List<Run> runs() {
    List<Run> sorted = new ArrayList<>(runs);
    sorted.sort(Comparator.comparing(Run::label));
    return sorted;
  }

  /** Total events over all runs. */
  public synchronized long events() {
    return runs.stream().mapToLong(Run::events).sum();
  }

  /** The one-line summary for the report. */
  public String summary() {
    List<Run> all = runs();
    long events = all.stream().mapToLong(Run::events).sum();
    long wall = all.stream().mapToLong(Run::wallNs).sum();
    long cpu = all.stream().mapToLong(Run::cpuNs).sum();
    long slowest = all.stream().mapToLong(Run::eventsPerSecond).min().orElse(0);
    return String.format(Locale.ROOT, "Simulator: %d machine runs, %,d events in %.1f s of run time (CPU %.1f s): "
            + "%.2f M events/s overall (%.2f M per CPU-second), slowest run %.2f M events/s",
        all.size(), events, wall / 1e9, cpu / 1e9, perSecond(events, wall) / 1e6, perSecond(events, cpu) / 1e6,
        slowest / 1e6);
  }

  /** JSON data: the summary object. */
  public Map<String, Object> summaryJson() {
    List<Run> all = runs();
    long events = all.stream().mapToLong(Run::events).sum();
    long wall = all.stream().mapToLong(Run::wallNs).sum();
    long cpu = all.stream().mapToLong(Run::cpuNs).sum();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("runs", all.size());
    m.put("events", events);
    m.put("wall_ns", wall);
    m.put("events_per_s", perSecond(events, wall));
    m.put("cpu_ns", cpu);
    m.put("events_per_cpu_s", perSecond(events, cpu));
    m.put("min_events_per_s", all.stream().mapToLong(Run::eventsPerSecond).min().orElse(0));
    return m;
  }

  /**
   * {@code result} with the runs added: {@code runs} (one object per run) and {@code simulator}
   * (totals) in its data, the {@link #summary} line at the end of its report.
   */
  public ReproductionResult attach(ReproductionResult result) {
    Map<String, Object> data = new LinkedHashMap<>(result.data());
    data.put("runs", runs().stream().map(Run::json).toList());
    data.put("simulator", summaryJson());
    List<String> report = new ArrayList<>(result.report());
    report.add(summary());
    return new ReproductionResult(result.name(), result.reproduced(), result.headline(),
        com.google.common.collect.ImmutableList.copyOf(report), result.metrics(), data, result.bands());
  }

  private static long cpuNow() {
    try {
      return THREADS.isCurrentThreadCpuTimeSupported() ? THREADS.getCurrentThreadCpuTime() : -1;
    } catch (UnsupportedOperationException e) {
      return -1;
    }
  }

  static long perSecond(long events, long ns) {
    return ns <= 0 ? 0 : Math.round(events * 1e9 / ns);
  }
}

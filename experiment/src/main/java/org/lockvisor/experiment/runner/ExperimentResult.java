package org.lockvisor.experiment.runner;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Task;

/**
 * What one run of an experiment (or of one of its variants) measured over the measurement window.
 *
 * @param experiment experiment name
 * @param variant {@code base} or the variant's name
 * @param arch arch profile
 * @param seed root seed
 * @param warmupNs simulated warm-up
 * @param simulatedNs simulated measurement time (until-done: up to the first check after the last
 *     workload finished)
 * @param wallNs wall-clock time of the whole run (the only field that differs between identical runs)
 * @param events simulation events processed (warm-up included)
 * @param fingerprint rolling hash over every processed event, in hex
 * @param workloads each workload's figures and native report
 * @param devices each device's statistics
 * @param lockStat lock_stat of every lock the run created
 * @param threads CPU time per thread over the measurement window
 * @param finishedNs until-done runs: the simulated time (ns since the simulation began) at which
 *     the last workload finished; -1 for a fixed duration
 * @param scheduling the scheduler counters of the measurement window ({@code
 *     SchedulingCounters.of}): migrations by cause, runqueue lengths, directed yields, confers,
 *     prods, pv halts and kicks; empty when not collected
 * @param profiles each guest's guest-sampled {@link SymbolProfile} of the measurement window (what
 *     {@code perf record -a} in the guest shows), in VM order; on a partition hypervisor its
 *     {@code [H]} lines are attributed to the VM's first workload
 * @param lockTotals the counters of every lock the run created, summed by algorithm ({@link LockTotals})
 * @param samples what the guest sampler saw of each guest ({@link GuestSamples}), in VM order;
 *     empty without {@code sample-interval}
 * @param convoys the convoy diagnosis of every lock with optimistic spin episodes or OSQ hand-offs
 *     ({@link LockConvoy}), most spin time first
 */
public record ExperimentResult(
    String experiment,
    String variant,
    String arch,
    long seed,
    long warmupNs,
    long simulatedNs,
    long wallNs,
    long events,
    String fingerprint,
    List<WorkloadResult> workloads,
    List<DeviceResult> devices,
    LockStatistics lockStat,
    List<ThreadCpu> threads,
    long finishedNs,
    Map<String, Object> scheduling,
    List<SymbolProfile> profiles,
    Map<String, LockTotals> lockTotals,
    List<GuestSamples> samples,
    List<LockConvoy> convoys) {

  public ExperimentResult {
    profiles = profiles == null ? ImmutableList.of() : ImmutableList.copyOf(profiles);
    lockTotals = lockTotals == null ? ImmutableMap.of() : ImmutableMap.copyOf(lockTotals);
    samples = samples == null ? ImmutableList.of() : ImmutableList.copyOf(samples);
    convoys = convoys == null ? ImmutableList.of() : ImmutableList.copyOf(convoys);
    scheduling = scheduling == null ? Map.of() : java.util.Collections.unmodifiableMap(
        new java.util.LinkedHashMap<>(scheduling));
    workloads = ImmutableList.copyOf(workloads);
    devices = ImmutableList.copyOf(devices);
    threads = ImmutableList.copyOf(threads);
  }

  /** A result without profiles, lock totals and samples. */
  public ExperimentResult(String experiment, String variant, String arch, long seed, long warmupNs, long simulatedNs,
      long wallNs, long events, String fingerprint, List<WorkloadResult> workloads, List<DeviceResult> devices,
      LockStatistics lockStat, List<ThreadCpu> threads, long finishedNs, Map<String, Object> scheduling) {
    this(experiment, variant, arch, seed, warmupNs, simulatedNs, wallNs, events, fingerprint, workloads, devices,
        lockStat, threads, finishedNs, scheduling, List.of(), Map.of(), List.of(), List.of());
  }

  /** A result without scheduler counters. */
  public ExperimentResult(String experiment, String variant, String arch, long seed, long warmupNs, long simulatedNs,
      long wallNs, long events, String fingerprint, List<WorkloadResult> workloads, List<DeviceResult> devices,
      LockStatistics lockStat, List<ThreadCpu> threads, long finishedNs) {
    this(experiment, variant, arch, seed, warmupNs, simulatedNs, wallNs, events, fingerprint, workloads, devices,
        lockStat, threads, finishedNs, Map.of());
  }

  /** The result of a fixed-duration run. */
  public ExperimentResult(String experiment, String variant, String arch, long seed, long warmupNs, long simulatedNs,
      long wallNs, long events, String fingerprint, List<WorkloadResult> workloads, List<DeviceResult> devices,
      LockStatistics lockStat, List<ThreadCpu> threads) {
    this(experiment, variant, arch, seed, warmupNs, simulatedNs, wallNs, events, fingerprint, workloads, devices,
        lockStat, threads, -1);
  }

  /**
   * One workload's figures (named and shaped like the tool's), its native report, if any, and
   * when it finished (ns since the simulation began; -1 if it did not or never does).
   */
  public record WorkloadResult(String vm, String name, String type, Map<String, Number> figures,
      Map<String, Object> nativeReport, long finishedNs) {
    public WorkloadResult {
      figures = ImmutableMap.copyOf(figures);
    }

    /** A workload that did not finish. */
    public WorkloadResult(String vm, String name, String type, Map<String, Number> figures,
        Map<String, Object> nativeReport) {
      this(vm, name, type, figures, nativeReport, -1);
    }
  }

  /** One device's statistics. */
  public record DeviceResult(String vm, String name, String type, Map<String, Number> stats) {
    public DeviceResult {
      stats = ImmutableMap.copyOf(stats);
    }
  }

  /** CPU time of one thread: kernel {@code host} or the VM's name; vCPU threads are host threads. */
  public record ThreadCpu(String kernel, String name, long cpuNs) {

    /** Total CPU time per task of {@code machine}, in task order (the start of a window). */
    public static long[] totals(Machine machine) {
      machine.syncAccounting();
      List<Task> tasks = machine.tasks();
      long[] cpu = new long[tasks.size()];
      for (int i = 0; i < cpu.length; i++) {
        cpu[i] = machine.account().threadTotal(tasks.get(i).id());
      }
      return cpu;
    }

    /** CPU time per thread (idle tasks left out) since {@code cpuAtStart} ({@link #totals}). */
    public static List<ThreadCpu> since(Machine machine, long[] cpuAtStart) {
      long[] cpuNow = totals(machine);
      List<ThreadCpu> threads = new ArrayList<>();
      List<Task> tasks = machine.tasks();
      for (int i = 0; i < tasks.size(); i++) {
        Task t = tasks.get(i);
        if (t.name().startsWith("swapper/")) {
          continue; // idle
        }
        long before = i < cpuAtStart.length ? cpuAtStart[i] : 0;
        threads.add(new ThreadCpu(t.kernel().isGuest() ? t.kernel().vm().name() : "host", t.name(),
            cpuNow[i] - before));
      }
      return threads;
    }
  }

  /** The guest-sampled profile of VM {@code vm}. */
  public SymbolProfile profile(String vm) {
    return profiles.stream().filter(p -> p.vm().equals(vm)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no profile of VM [" + vm + "]"));
  }

  /** What the guest sampler saw of VM {@code vm}. */
  public GuestSamples samples(String vm) {
    return samples.stream().filter(p -> p.vm().equals(vm)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no samples of VM [" + vm + "]; set sample-interval"));
  }

  /** The workload called {@code name} in VM {@code vm}. */
  public WorkloadResult workload(String vm, String name) {
    return workloads.stream().filter(w -> w.vm().equals(vm) && w.name().equals(name)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no workload [" + name + "] in VM [" + vm + "]"));
  }
}

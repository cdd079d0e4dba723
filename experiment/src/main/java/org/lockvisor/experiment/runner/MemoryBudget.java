package org.lockvisor.experiment.runner;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import java.util.Locale;
import org.lockvisor.core.plugin.Footprint;
import org.lockvisor.experiment.model.BackgroundSpec;
import org.lockvisor.experiment.model.ComponentSpec;
import org.lockvisor.experiment.model.Experiment;
import org.lockvisor.experiment.model.ExperimentPlugins;
import org.lockvisor.experiment.model.InvalidExperimentException;
import org.lockvisor.experiment.model.Problem;
import org.lockvisor.experiment.model.VmSpec;
import org.lockvisor.workloads.spi.Workload;
import org.lockvisor.workloads.spi.WorkloadFactory;

/**
 * The memory budget of one machine, checked before anything is built: the threads the model
 * implies (host CPUs, vCPUs, background VMs and host threads) and each workload's own {@link
 * Footprint} (tasks, pipes, requests in flight), estimated from the validated model and compared
 * with the limit — three quarters of the JVM's maximum heap (the rest is for the run itself:
 * events, statistics, outputs), or {@code --max-memory} when that is lower. An experiment over the
 * limit is refused with one problem naming the largest component, the estimate and the limit,
 * instead of an {@link OutOfMemoryError} after minutes of building.
 */
final class MemoryBudget {

  /** A simulated thread with its scheduler entity and statistics, rounded up (measured: about 1.5 KB). */
  static final long BYTES_PER_THREAD = 2_048;

  private MemoryBudget() {}

  /** Three quarters of the JVM's maximum heap. */
  static long defaultLimit() {
    long max = Runtime.getRuntime().maxMemory();
    return max == Long.MAX_VALUE ? Long.MAX_VALUE : max / 4 * 3;
  }

  /**
   * Refuses {@code e} when its estimate exceeds {@code limit}.
   *
   * @param limitSource how the limit was set, for the message (formatted only on refusal) ({@code --max-memory 512m})
   * @throws InvalidExperimentException with one problem at the path of the largest component
   */
  static void check(Experiment e, ExperimentPlugins plugins, long limit, Supplier<String> limitSource) {
    long total = 0;
    String largestPath = "";
    Footprint largest = Footprint.NONE;
    long threads = Math.max(0, e.host().cpus()) + Math.max(0, e.background().hostThreads());
    for (VmSpec vm : e.vms()) {
      threads += Math.max(0, vm.vcpus());
    }
    for (BackgroundSpec.BackgroundVm vm : e.background().vms()) {
      threads += 2L * Math.max(0, vm.vcpus()); // the vCPU thread and its guest's hog task
    }
    Footprint machine = new Footprint(Footprint.times(threads, BYTES_PER_THREAD), threads + " CPUs and threads");
    total = machine.bytes();
    largest = machine;
    for (int i = 0; i < e.vms().size(); i++) {
      List<ComponentSpec> workloads = e.vms().get(i).workloads();
      for (int w = 0; w < workloads.size(); w++) {
        Footprint f = footprint(plugins, e.arch(), workloads.get(w));
        total = Footprint.plus(total, f.bytes());
        if (f.bytes() > largest.bytes()) {
          largest = new Footprint(f.bytes(), workloads.get(w).type() + ": " + f.basis());
          largestPath = "vms[" + i + "].workloads[" + w + "]";
        }
      }
    }
    if (total > limit) {
      List<Problem> problems = new ArrayList<>();
      problems.add(new Problem(largestPath, "the machine needs about " + bytes(total) + " of heap before it runs ("
          + "estimate; largest: " + largest.basis() + ", " + bytes(largest.bytes()) + "), over the limit of "
          + bytes(limit) + " (" + limitSource.get() + "); make it smaller, or give the JVM a larger heap"
          + " (JAVA_TOOL_OPTIONS=-Xmx<size>)"));
      throw new InvalidExperimentException("", problems);
    }
  }

  /** The footprint of a workload as configured; nothing when its configuration is refused (reported elsewhere). */
  private static Footprint footprint(ExperimentPlugins plugins, String arch, ComponentSpec c) {
    WorkloadFactory f = plugins.workloads().get(c.type());
    if (f == null) {
      return Footprint.NONE;
    }
    try {
      Workload workload = ExperimentPlugins.detached(f, c.name(), c.options(), plugins.costs(arch));
      Footprint footprint = workload.footprint();
      return footprint == null ? Footprint.NONE : footprint;
    } catch (RuntimeException ex) {
      return Footprint.NONE; // the assembly that follows reports the configuration's problem
    }
  }

  /** {@code 768 MiB}, {@code 26.9 GiB}. */
  static String bytes(long n) {
    if (n == Long.MAX_VALUE) {
      return "more than 8 EiB";
    }
    String[] units = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = n;
    int u = 0;
    while (v >= 1024 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return u == 0 ? n + " bytes" : String.format(Locale.ROOT, v < 10 ? "%.1f %s" : "%.0f %s", v, units[u]);
  }
}

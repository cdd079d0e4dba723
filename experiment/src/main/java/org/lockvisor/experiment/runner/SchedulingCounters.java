package org.lockvisor.experiment.runner;

import com.google.common.collect.ImmutableMap;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.lockvisor.machine.CpuTopology;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.SchedStats;
import org.lockvisor.machine.Vm;
import org.lockvisor.machine.YieldStats;

/**
 * The scheduling counters of a run (issue 17) as {@link ExperimentResult#scheduling} holds them:
 * per level of the machine (the host, each guest) the topology its domains were built from,
 * migrations by cause, the time-weighted runqueue length distribution; per VM the directed-yield,
 * confer/prod and pv halt/kick counters, and on PowerVM the hypervisor calls (H_CEDE, H_PROD,
 * H_CONFER, H_IPI, H_XIRR, H_EOI) with their rates per second; machine totals of the yields. Here rather than in the
 * report package so the runner does not depend on reports.
 */
public final class SchedulingCounters {
  private SchedulingCounters() {}

  /** The counters of {@code machine} now, rates over the whole simulated time. */
  public static Map<String, Object> of(Machine machine) {
    return of(machine, machine.sim().now());
  }

  /**
   * The counters of {@code machine} now, as nested maps in a stable order; rates (the PowerVM
   * hcalls per second) are over {@code measuredNs}, the window since the counters were reset.
   */
  public static Map<String, Object> of(Machine machine, long measuredNs) {
    long now = machine.sim().now();
    Map<String, Object> out = new LinkedHashMap<>();
    Kernel host = machine.host();
    Map<String, Object> h = level(host, now);
    h.put("background_softirqs", host.backgroundSoftirqs());
    h.put("background_kworker_wakeups", host.backgroundKworkerWakeups());
    h.put("tick_phase", host.hostActivity().tickPhase().name().toLowerCase(Locale.ROOT));
    out.put("host", h);
    List<Object> guests = new ArrayList<>();
    YieldStats total = YieldStats.empty();
    for (Vm vm : machine.vms()) {
      Map<String, Object> g = level(vm.guest(), now);
      g.put("vm", vm.name());
      g.put("directed_yield", vm.directedYieldVariant().name().toLowerCase(Locale.ROOT));
      YieldStats y = vm.yieldStats();
      g.put("yields", y.asMap());
      if (vm.partitionFirmware()) {
        g.put("hcalls", vm.hcalls());
        g.put("hcalls_per_second", perSecond(vm.hcalls(), measuredNs));
      }
      total = total.plus(y);
      guests.add(g);
    }
    out.put("guests", guests);
    out.put("totals", total.asMap());
    return out;
  }

  /** {@code counts} per second of {@code ns}, rounded to 0.1 (0 for an empty window). */
  public static Map<String, Double> perSecond(Map<String, Long> counts, long ns) {
    Map<String, Double> out = new LinkedHashMap<>();
    counts.forEach((k, v) -> out.put(k, ns <= 0 ? 0.0 : Math.round(v * 1e10 / ns) / 10.0));
    return out;
  }

  private static Map<String, Object> level(Kernel k, long now) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("kernel", k.name());
    CpuTopology t = k.topology();
    m.put("topology", ImmutableMap.of("cpus", k.cpuCount(), "threads_per_core", t.threadsPerCore(),
        "llc_cpus", Math.min(k.cpuCount(), t.llcCpus()), "die_cpus", Math.min(k.cpuCount(), t.dieCpus())));
    SchedStats s = k.schedStats();
    m.put("migrations", s.migrationsByCause());
    m.put("runqueue_length_shares", s.lengthShares(now));
    m.put("runqueue_length_mean", s.meanLength(now));
    m.put("runqueue_length_max", s.maxLength());
    return m;
  }

}

package org.lockvisor.reports;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.lockvisor.experiment.runner.SchedulingCounters;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.SchedStats;
import org.lockvisor.machine.Vm;

/**
 * The scheduling counters of a run (issue 17), per level of the machine (the host, each guest):
 * the topology its domains were built from, migrations by cause (wake, fork, periodic, newidle,
 * nohz, active), the time-weighted distribution of runqueue lengths over its CPUs, and per VM the
 * directed-yield / confer / prod / pv halt and kick counters; machine totals of the latter. The
 * same numbers go to {@code result.json} ({@code scheduling}), {@code report.html} and {@code
 * kvm-stat.txt}.
 */
public final class SchedulingReport {
  private SchedulingReport() {}

  /** The counters of {@code machine} now ({@link SchedulingCounters#of}). */
  public static Map<String, Object> of(Machine machine) {
    return SchedulingCounters.of(machine);
  }

  /** Text for the end of {@code kvm-stat.txt}: per VM the yield counters, then the levels. */
  public static String text(Machine machine) {
    Map<String, Object> m = of(machine);
    StringBuilder b = new StringBuilder("\nDirected yield, confer/prod and pv halt/kick (per VM):\n\n");
    for (Vm vm : machine.vms()) {
      b.append(String.format(Locale.ROOT, "VM %s (kvm_vcpu_on_spin %s)%n", vm.name(),
          vm.directedYieldVariant().name().toLowerCase(Locale.ROOT)));
      vm.yieldStats().asMap().forEach((k, v) -> b.append(String.format(Locale.ROOT, "  %-24s %12d%n", k, v)));
      if (vm.partitionFirmware()) {
        vm.hcalls().forEach((k, v) -> b.append(String.format(Locale.ROOT, "  %-24s %12d%n", k, v)));
      }
    }
    b.append("\nScheduler (migrations by cause, runqueue length shares):\n\n");
    append(b, machine.host(), machine.sim().now());
    for (Vm vm : machine.vms()) {
      append(b, vm.guest(), machine.sim().now());
    }
    return b.toString();
  }

  private static void append(StringBuilder b, Kernel k, long now) {
    SchedStats s = k.schedStats();
    b.append(String.format(Locale.ROOT, "%s: migrations %s; nr_running mean %.2f max %d; shares %s%n", k.name(),
        s.migrationsByCause(), s.meanLength(now), s.maxLength(), shares(s.lengthShares(now))));
  }

  private static String shares(Map<String, Double> shares) {
    StringBuilder b = new StringBuilder("{");
    shares.forEach((k, v) -> b.append(b.length() > 1 ? ", " : "").append(k).append('=')
        .append(String.format(Locale.ROOT, "%.3f", v)));
    return b.append('}').toString();
  }

  /**
   * Table rows for report.html: per PowerVM guest and hcall (H_CEDE, H_PROD, H_CONFER, H_IPI,
   * H_XIRR, H_EOI) the count and the rate per second of the measured window; none on KVM.
   */
  public static List<List<String>> hcallRows(Map<String, Object> scheduling) {
    List<List<String>> rows = new ArrayList<>();
    if (!(scheduling.get("guests") instanceof List<?> guests)) {
      return rows;
    }
    for (Object o : guests) {
      if (!(o instanceof Map<?, ?> g) || !(g.get("hcalls") instanceof Map<?, ?> counts)
          || !(g.get("hcalls_per_second") instanceof Map<?, ?> rates)) {
        continue;
      }
      counts.forEach((k, v) -> rows.add(List.of(String.valueOf(g.get("vm")), String.valueOf(k), String.valueOf(v),
          String.format(Locale.ROOT, "%.1f", ((Number) rates.get(k)).doubleValue()))));
    }
    return rows;
  }

  /** Table rows for report.html: one per level (migrations by cause, mean and max nr_running). */
  public static List<List<String>> levelRows(Map<String, Object> scheduling) {
    List<List<String>> rows = new ArrayList<>();
    List<Object> levels = new ArrayList<>();
    levels.add(scheduling.get("host"));
    Object guests = scheduling.get("guests");
    if (guests instanceof List<?> l) {
      levels.addAll(l);
    }
    for (Object o : levels) {
      if (!(o instanceof Map<?, ?> lvl)) {
        continue;
      }
      Map<?, ?> mig = (Map<?, ?>) lvl.get("migrations");
      List<String> row = new ArrayList<>();
      row.add(String.valueOf(lvl.get("kernel")));
      for (String c : List.of("wake", "fork", "periodic", "newidle", "nohz", "active")) {
        row.add(String.valueOf(mig == null ? "-" : mig.get(c)));
      }
      row.add(String.format(Locale.ROOT, "%.2f", ((Number) lvl.get("runqueue_length_mean")).doubleValue()));
      row.add(String.valueOf(lvl.get("runqueue_length_max")));
      rows.add(row);
    }
    return rows;
  }
}

package org.lockvisor.reports;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.lockvisor.machine.VcpuTask;
import org.lockvisor.machine.Vm;

/**
 * VM-exit statistics in the layout of {@code perf kvm stat report --event=vmexit}: per exit
 * reason the samples, their share, the share of handling time, min/max/avg time and the relative
 * standard error of the mean ({@code ( +- x% )}), sorted by samples as perf does by default.
 * Printed for all vCPUs of a VM and then per vCPU, so one file holds what {@code --vcpu=N} shows.
 */
public final class KvmStatReport {

  private KvmStatReport() {}

  /** One row: an exit reason aggregated over a set of vCPUs. */
  public record Row(String reason, long samples, long totalNs, long minNs, long maxNs, double stddevNs) {
    public double avgNs() {
      return samples == 0 ? 0 : (double) totalNs / samples;
    }
  }

  /** The rows of {@code vcpus} merged by reason, most samples first (ties by name). */
  public static List<Row> rows(List<VcpuTask> vcpus) {
    Map<String, long[]> sums = new LinkedHashMap<>();
    Map<String, double[]> squares = new LinkedHashMap<>();
    for (VcpuTask vcpu : vcpus) {
      vcpu.exitStats().forEach((reason, stats) -> {
        if (stats.count() == 0) {
          return;
        }
        long[] s = sums.computeIfAbsent(reason, r -> new long[] {0, 0, Long.MAX_VALUE, 0});
        s[0] += stats.count();
        s[1] += stats.totalNs();
        s[2] = Math.min(s[2], stats.minNs());
        s[3] = Math.max(s[3], stats.maxNs());
        // Recover each vCPU's sum of squares to merge variances exactly.
        double mean = (double) stats.totalNs() / stats.count();
        double sq = stats.stddevNs() * stats.stddevNs() * (stats.count() - 1) + stats.count() * mean * mean;
        squares.computeIfAbsent(reason, r -> new double[1])[0] += sq;
      });
    }
    List<Row> rows = new ArrayList<>();
    sums.forEach((reason, s) -> {
      double mean = (double) s[1] / s[0];
      double variance = s[0] < 2 ? 0 : Math.max(0, (squares.get(reason)[0] - s[0] * mean * mean) / (s[0] - 1));
      rows.add(new Row(reason, s[0], s[1], s[2], s[3], Math.sqrt(variance)));
    });
    rows.sort(Comparator.comparingLong(Row::samples).reversed().thenComparing(Row::reason));
    return rows;
  }

  /** The whole file for the given VMs: per VM all vCPUs, then each vCPU. */
  public static String render(List<Vm> vms) {
    StringBuilder out = new StringBuilder();
    for (Vm vm : vms) {
      out.append(section("Analyze events for VM " + vm.name() + ", all VCPUs:", rows(vm.vcpus())));
      for (int i = 0; i < vm.vcpus().size(); i++) {
        out.append(section("Analyze events for VM " + vm.name() + ", VCPU " + i + ":", rows(List.of(vm.vcpus().get(i)))));
      }
    }
    return out.toString();
  }

  /** One {@code perf kvm stat report} table with its heading and totals line. */
  public static String section(String heading, List<Row> rows) {
    long samples = rows.stream().mapToLong(Row::samples).sum();
    long time = rows.stream().mapToLong(Row::totalNs).sum();
    StringBuilder out = new StringBuilder();
    out.append('\n').append(heading).append("\n\n");
    out.append(String.format(Locale.ROOT, "%20s %10s %9s %9s %11s %11s %16s%n%n",
        "VM-EXIT", "Samples", "Samples%", "Time%", "Min Time", "Max Time", "Avg time"));
    for (Row r : rows) {
      double stderrPct = r.samples() < 2 || r.avgNs() == 0 ? 0
          : 100.0 * r.stddevNs() / Math.sqrt(r.samples()) / r.avgNs();
      out.append(String.format(Locale.ROOT, "%20s %10d %8.2f%% %8.2f%% %9.2fus %9.2fus %9.2fus ( +- %6.2f%% )%n",
          r.reason(), r.samples(), pct(r.samples(), samples), pct(r.totalNs(), time),
          r.minNs() / 1e3, r.maxNs() / 1e3, r.avgNs() / 1e3, stderrPct));
    }
    out.append(String.format(Locale.ROOT, "%nTotal Samples:%d, Total events handled time:%.2fus.%n", samples, time / 1e3));
    return out.toString();
  }

  private static double pct(long part, long whole) {
    return whole == 0 ? 0 : 100.0 * part / whole;
  }
}

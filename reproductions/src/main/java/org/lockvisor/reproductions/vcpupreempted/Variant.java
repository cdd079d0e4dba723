package org.lockvisor.reproductions.vcpupreempted;

import com.google.common.collect.ImmutableList;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.lockvisor.reports.PerfReport;

/**
 * One variant (baseline or patched, on one platform) replicated over seeds: its guest profile
 * shares and runtime as means over the replications, in seed order.
 *
 * <p>Split out of {@link VcpuPreemptedReproduction}: a run's shares are read through {@link Outcome}.
 */
final class Variant {
  private final ImmutableList<Outcome> runs;

  Variant(List<Outcome> runs) {
    this.runs = ImmutableList.copyOf(runs);
  }

  ImmutableList<Outcome> runs() {
    return runs;
  }

  /** The first replication (its perf report is written out). */
  Outcome first() {
    return runs.get(0);
  }

  /** Mean share (%) of {@code symbol}; {@code [H]} is the hypervisor total. */
  double share(String symbol) {
    return runs.stream().mapToDouble(o -> Outcome.share(o.report(), symbol)).average().orElse(0);
  }

  /** Mean share (%) of the three optimistic-spin symbols together. */
  double spin() {
    return runs.stream().mapToDouble(o -> Outcome.spin(o.report())).average().orElse(0);
  }

  /** The spin share of each replication. */
  List<Double> spinPerRun() {
    List<Double> out = new ArrayList<>();
    runs.forEach(o -> out.add(Outcome.spin(o.report())));
    return out;
  }

  /** Mean of perf's total time (s). */
  double runtimeSeconds() {
    return runs.stream().mapToDouble(Outcome::totalTimeSeconds).average().orElse(0);
  }

  double meanStat(String key) {
    return runs.stream().mapToDouble(o -> o.stats().get(key)).average().orElse(0);
  }

  /** Mean over the replications of {@code key} per simulated second of each run. */
  double perSecond(String key) {
    return runs.stream().mapToDouble(o -> o.simulatedNs() <= 0 ? 0
        : o.stats().getOrDefault(key, 0L) * 1e9 / o.simulatedNs()).average().orElse(0);
  }

  /** The ratio of two summed statistics over the replications (0 when the denominator is 0). */
  double ratio(String numerator, String denominator) {
    double n = runs.stream().mapToDouble(o -> o.stats().getOrDefault(numerator, 0L)).sum();
    double d = runs.stream().mapToDouble(o -> o.stats().getOrDefault(denominator, 0L)).sum();
    return d == 0 ? 0 : n / d;
  }

  /** The largest value of {@code key} over the replications. */
  double maxStat(String key) {
    return runs.stream().mapToDouble(o -> o.stats().getOrDefault(key, 0L)).max().orElse(0);
  }

  double meanEvents() {
    return runs.stream().mapToDouble(Outcome::events).average().orElse(0);
  }

  /** Mean share by symbol over the replications ({@code [H]} lines summed into one), largest first. */
  List<Map.Entry<String, Double>> meanProfile() {
    Map<String, Double> sum = new LinkedHashMap<>();
    for (Outcome o : runs) {
      PerfReport r = o.report();
      for (PerfReport.Line l : r.lines()) {
        if (l.marker() != 'H') {
          sum.merge(l.symbol(), l.percent() / runs.size(), Double::sum);
        }
      }
      sum.merge("[H]", r.hypervisorPercent() / runs.size(), Double::sum);
    }
    List<Map.Entry<String, Double>> sorted = new ArrayList<>(sum.entrySet());
    sorted.sort((x, y) -> {
      int c = Double.compare(y.getValue(), x.getValue());
      return c != 0 ? c : x.getKey().compareTo(y.getKey());
    });
    return sorted;
  }
}

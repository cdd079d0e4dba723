package org.lockvisor.benchmarks;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.CommandLineOptionException;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * Runs the engine and bare-heap hold benchmarks in one JMH run and prints one table: events/s
 * per (benchmark, pending) and the ratio to the bare loop at the same N. Any JMH command-line
 * option (forks, iterations, -p) passes through.
 */
public final class HoldReport {

  private HoldReport() {}

  public static void main(String[] args) throws RunnerException, CommandLineOptionException {
    CommandLineOptions commandLine = new CommandLineOptions(args);
    OptionsBuilder options = new OptionsBuilder();
    options.parent(commandLine);
    if (commandLine.getIncludes().isEmpty()) {
      options.include(EngineHoldBenchmark.class.getName()).include(BareHeapBenchmark.class.getName());
    }
    Collection<RunResult> results = new Runner(options.build()).run();
    System.out.println();
    System.out.print(table(results));
  }

  static String table(Collection<RunResult> results) {
    record Row(String benchmark, String pending, String distribution, double score, double error) {}
    List<Row> rows = new ArrayList<>();
    Map<String, Double> bare = new HashMap<>();
    for (RunResult result : results) {
      String benchmark = result.getParams().getBenchmark();
      String simpleName = benchmark.substring(benchmark.lastIndexOf('.', benchmark.lastIndexOf('.') - 1) + 1);
      String pending = result.getParams().getParam("pending");
      String distribution = result.getParams().getParam("distribution");
      Row row = new Row(simpleName, pending, distribution,
          result.getPrimaryResult().getScore(), result.getPrimaryResult().getScoreError());
      rows.add(row);
      if (simpleName.startsWith(BareHeapBenchmark.class.getSimpleName())) {
        bare.put(pending + "/" + distribution, row.score());
      }
    }
    rows.sort(Comparator.comparing(Row::distribution).thenComparing(r -> Integer.parseInt(r.pending()))
        .thenComparing(Row::benchmark));
    StringBuilder table = new StringBuilder(String.format(
        "%-26s %-12s %-8s %16s %14s %14s%n", "benchmark", "distribution", "pending", "events/s", "+/- (99.9%)",
        "ratio to bare"));
    for (Row row : rows) {
      Double floor = bare.get(row.pending() + "/" + row.distribution());
      String ratio = floor == null || floor == 0 ? "n/a" : String.format("%.2f", row.score() / floor);
      table.append(String.format("%-26s %-12s %-8s %,16.0f %,14.0f %14s%n",
          row.benchmark(), row.distribution(), row.pending(), row.score(), row.error(), ratio));
    }
    return table.toString();
  }
}

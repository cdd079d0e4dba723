package org.lockvisor.benchmarks;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.CommandLineOptionException;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs the benchmark suite in one JMH run — the hold model on the engine, on the bare heap, on
 * the packed-key heap and on SSJ, and the lock hand-off micro-model — and prints one table:
 * events/s per (benchmark, parameter), the ratio to the bare loop at the same N, and for the
 * engine the factor over SSJ at the same N. Any JMH command-line option (forks, iterations, -p, a
 * benchmark regexp) passes through.
 */
public final class HoldReport {

  private HoldReport() {}

  public static void main(String[] args) throws RunnerException {
    CommandLineOptions commandLine;
    try {
      commandLine = new CommandLineOptions(args);
    } catch (CommandLineOptionException e) {
      System.err.println("benchmarks: " + e.getMessage());
      System.exit(2);
      return;
    }
    OptionsBuilder options = new OptionsBuilder();
    options.parent(commandLine);
    // Defaults that fit a 2-core machine; any of them given on the command line wins.
    if (!commandLine.getForkCount().hasValue()) {
      options.forks(1);
    }
    if (!commandLine.getWarmupIterations().hasValue()) {
      options.warmupIterations(3);
    }
    if (!commandLine.getMeasurementIterations().hasValue()) {
      options.measurementIterations(5);
    }
    if (!commandLine.getWarmupTime().hasValue()) {
      options.warmupTime(TimeValue.seconds(1));
    }
    if (!commandLine.getMeasurementTime().hasValue()) {
      options.measurementTime(TimeValue.seconds(1));
    }
    if (!commandLine.getThreads().hasValue()) {
      options.threads(1);
    }
    if (commandLine.getIncludes().isEmpty()) {
      options.include(EngineHoldBenchmark.class.getName())
          .include(BareHeapBenchmark.class.getName())
          .include(PackedHeapBenchmark.class.getName())
          .include(SsjHoldBenchmark.class.getName())
          .include(LockHandoffBenchmark.class.getName());
    }
    Collection<RunResult> results = new Runner(options.build()).run();
    System.out.println();
    System.out.print(table(results));
  }

  static String table(Collection<RunResult> results) {
    record Row(String benchmark, String param, double score, double error) {}
    List<Row> rows = new ArrayList<>();
    Map<String, Double> bare = new HashMap<>();
    Map<String, Double> ssj = new HashMap<>();
    for (RunResult result : results) {
      String benchmark = result.getParams().getBenchmark();
      String simpleName = benchmark.substring(benchmark.lastIndexOf('.', benchmark.lastIndexOf('.') - 1) + 1);
      String pending = result.getParams().getParam("pending");
      String param;
      Result<?> score;
      if (pending != null) {
        String distribution = result.getParams().getParam("distribution");
        param = "pending=" + pending + ("exponential".equals(distribution) ? "" : " " + distribution);
        score = result.getPrimaryResult();
      } else {
        param = "spinners=" + result.getParams().getParam("spinners");
        score = result.getSecondaryResults().get("events");
        if (score == null) {
          score = result.getPrimaryResult();
        }
      }
      Row row = new Row(simpleName, param, score.getScore(), score.getScoreError());
      rows.add(row);
      if (simpleName.startsWith(BareHeapBenchmark.class.getSimpleName())) {
        bare.put(param, row.score());
      } else if (simpleName.startsWith(SsjHoldBenchmark.class.getSimpleName())) {
        ssj.put(param, row.score());
      }
    }
    rows.sort(Comparator.comparing((Row r) -> r.benchmark().startsWith("Lock"))
        .thenComparing(r -> r.param().length())
        .thenComparing(Row::param)
        .thenComparing(Row::benchmark));
    StringBuilder table = new StringBuilder(String.format("%-30s %-16s %16s %14s %8s %8s%n",
        "benchmark", "parameter", "events/s", "+/- (99.9%)", "/bare", "/SSJ"));
    for (Row row : rows) {
      boolean hold = !row.benchmark().startsWith("Lock");
      Double floor = bare.get(row.param());
      Double peer = ssj.get(row.param());
      String toBare = !hold || floor == null || floor == 0 ? "" : String.format("%.2f", row.score() / floor);
      String toSsj = !row.benchmark().startsWith(EngineHoldBenchmark.class.getSimpleName()) || peer == null
          || peer == 0 ? "" : String.format("%.2f", row.score() / peer);
      table.append(String.format("%-30s %-16s %,16.0f %,14.0f %8s %8s%n",
          row.benchmark(), row.param(), row.score(), row.error(), toBare, toSsj));
    }
    return table.toString();
  }
}

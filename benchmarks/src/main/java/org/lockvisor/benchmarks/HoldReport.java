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
 * Runs the benchmark suite — the hold model on the engine, on the bare heap, on the packed-key
 * heap and on SSJ, and the lock hand-off micro-model, in one JMH run; then each reproduction's
 * quick scenario, one machine run per invocation, in a second run with longer iterations — and
 * prints two tables: events/s per (benchmark, parameter) with the ratio to the bare loop at the
 * same N and the engine's factor over SSJ, and per reproduction the wall time of one run and its
 * events/s. Any JMH command-line option (forks, iterations, -p, a benchmark regexp) passes through
 * to both runs.
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
    boolean userIncludes = !commandLine.getIncludes().isEmpty();
    // Phase 1: the hold models and the lock hand-off model, short iterations.
    OptionsBuilder options = defaults(commandLine, 3, 5, 1, 1);
    options.exclude(QUICK);
    if (!userIncludes) {
      options.include(EngineHoldBenchmark.class.getName())
          .include(BareHeapBenchmark.class.getName())
          .include(BareTieredBenchmark.class.getName())
          .include(PackedHeapBenchmark.class.getName())
          .include(SsjHoldBenchmark.class.getName())
          .include(LockHandoffBenchmark.class.getName());
    }
    boolean onlyQuick = userIncludes && commandLine.getIncludes().stream().allMatch(i -> i.contains("Quick"));
    Collection<RunResult> results = onlyQuick ? List.of() : new Runner(options.build()).run();
    // Phase 2: the reproductions' quick scenarios, one machine run (0.2 - 5 s) per invocation, so
    // longer iterations; run when no benchmark was named or a named one is a QuickBenchmark.
    Collection<RunResult> runs = List.of();
    if (!userIncludes || commandLine.getIncludes().stream().anyMatch(i -> i.contains("Quick"))) {
      OptionsBuilder quick = defaults(commandLine, 2, 3, 3, 4);
      if (!userIncludes) {
        quick.include(QUICK);
      }
      runs = new Runner(quick.build()).run();
    }
    System.out.println();
    if (!results.isEmpty()) {
      System.out.print(table(results));
    }
    if (!runs.isEmpty()) {
      System.out.println();
      System.out.print(runTable(runs));
    }
  }

  /** The per-reproduction benchmarks (each runs a {@code QuickScenarios} scenario). */
  static final String QUICK = "org\\.lockvisor\\.benchmarks\\..*QuickBenchmark";

  /** Defaults that fit a 2-core machine; any of them given on the command line wins. */
  private static OptionsBuilder defaults(CommandLineOptions commandLine, int warmups, int iterations,
      int warmupSeconds, int iterationSeconds) {
    OptionsBuilder options = new OptionsBuilder();
    options.parent(commandLine);
    if (!commandLine.getForkCount().hasValue()) {
      options.forks(1);
    }
    if (!commandLine.getWarmupIterations().hasValue()) {
      options.warmupIterations(warmups);
    }
    if (!commandLine.getMeasurementIterations().hasValue()) {
      options.measurementIterations(iterations);
    }
    if (!commandLine.getWarmupTime().hasValue()) {
      options.warmupTime(TimeValue.seconds(warmupSeconds));
    }
    if (!commandLine.getMeasurementTime().hasValue()) {
      options.measurementTime(TimeValue.seconds(iterationSeconds));
    }
    if (!commandLine.getThreads().hasValue()) {
      options.threads(1);
    }
    return options;
  }

  /**
   * The per-reproduction table: wall time of one machine run (the inverse of the primary score),
   * events per wall second and simulated milliseconds per wall second.
   */
  static String runTable(Collection<RunResult> results) {
    StringBuilder table = new StringBuilder(String.format("%-30s %-22s %10s %14s %14s %12s%n",
        "reproduction (quick run)", "parameter", "ms/run", "events/s", "+/- (99.9%)", "sim ms/s"));
    for (RunResult result : results) {
      String benchmark = result.getParams().getBenchmark();
      String simpleName = benchmark.substring(benchmark.lastIndexOf('.', benchmark.lastIndexOf('.') - 1) + 1);
      StringBuilder param = new StringBuilder();
      for (String key : result.getParams().getParamsKeys()) {
        param.append(param.length() == 0 ? "" : " ").append(key).append('=').append(result.getParams().getParam(key));
      }
      double runsPerSecond = result.getPrimaryResult().getScore();
      Result<?> events = result.getSecondaryResults().get("events");
      Result<?> simulated = result.getSecondaryResults().get("simulatedNs");
      table.append(String.format("%-30s %-22s %,10.0f %,14.0f %,14.0f %,12.1f%n", simpleName, param,
          runsPerSecond <= 0 ? 0 : 1000 / runsPerSecond, events == null ? 0 : events.getScore(),
          events == null ? 0 : events.getScoreError(), simulated == null ? 0 : simulated.getScore() / 1e6));
    }
    return table.toString();
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

package org.lockvisor.studies.sweep;

import static com.google.common.base.Preconditions.checkArgument;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import org.lockvisor.experiment.SimulationFailedException;
import org.lockvisor.experiment.UserInputException;
import org.lockvisor.experiment.io.AtomicFiles;
import org.lockvisor.experiment.model.Experiment;
import org.lockvisor.experiment.model.ExperimentYaml;
import org.lockvisor.experiment.model.SweepPoints;
import org.lockvisor.experiment.runner.ExperimentResult;
import org.lockvisor.experiment.runner.Runner;
import org.lockvisor.experiment.runner.ResultJson;
import org.lockvisor.experiment.runner.Statistics;

/**
 * Runs a sweep: every point (the cartesian product of the swept values) with R replications,
 * each replication running the point's base and variants with one seed derived from (root seed,
 * point, replication), so variants are paired. Runs execute on {@code jobs} threads (each run
 * owns its simulation); a point's file {@code points/point-<i>.json} is written atomically when
 * its replications are done; {@code resume} skips points whose file exists for the same sweep;
 * a shard {@code i/N} runs the points whose index is {@code i} modulo {@code N}. {@link #merge}
 * assembles point files (from one or several shard directories) into {@code sweep.json}: per
 * point, variant and figure the mean and 95 % confidence interval, and per variant the paired
 * difference to the base with its own interval.
 */
public final class SweepRunner {

  private final Runner runner;

  public SweepRunner(Runner runner) {
    this.runner = runner;
  }

  /** Which points to run and how. */
  public record Options(int jobs, int shard, int shards, boolean resume) {
    public Options {
      checkArgument(jobs >= 1, "jobs must be positive: %s", jobs);
      checkArgument(shards >= 1 && shard >= 0 && shard < shards, "bad shard %s/%s", shard, shards);
    }
  }

  /** What a sweep did. */
  /**
   * @param failed points whose run failed (a plugin fault, an invariant, a budget): their point
   *     files record the error, the other points complete, and {@code resume} retries them
   */
  public record Outcome(int points, int ran, int skipped, boolean complete, List<String> failed) {
    public Outcome(int points, int ran, int skipped, boolean complete) {
      this(points, ran, skipped, complete, List.of());
    }
  }

  /** A stable identity of the sweep's configuration: resumed and merged files must share it. */
  public static String sweepHash(Experiment e) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(ExperimentYaml.write(e)
          .getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 8);
    } catch (NoSuchAlgorithmException ex) {
      throw new IllegalStateException(ex);
    }
  }

  static Path pointFile(Path out, int point) {
    return out.resolve("points").resolve(String.format("point-%05d.json", point));
  }

  /**
   * Runs the sweep of {@code e} (assumed valid) into {@code out}; {@code progress} receives one
   * line per finished point. Writes {@code sweep.json} when every point is present in {@code out}.
   */
  public Outcome run(String source, Experiment e, Path out, Options options, Consumer<String> progress) {
    String hash = sweepHash(e);
    List<Map<String, String>> points = SweepPoints.of(e);
    List<Integer> todo = new ArrayList<>();
    int skipped = 0;
    for (int i = 0; i < points.size(); i++) {
      if (i % options.shards() != options.shard()) {
        continue;
      }
      if (options.resume() && finished(pointFile(out, i), hash)) {
        skipped++;
        continue;
      }
      todo.add(i);
    }
    int replications = e.replications();
    List<String> failed = new ArrayList<>();
    long start = System.nanoTime();
    ExecutorService pool = Executors.newFixedThreadPool(options.jobs(), r -> {
      Thread t = new Thread(r, "lockvisor-sweep");
      t.setDaemon(true);
      return t;
    });
    try {
      // One task per (point, replication), submitted point by point so points finish in order.
      Map<Integer, List<Future<List<ExperimentResult>>>> futures = new LinkedHashMap<>();
      for (int i : todo) {
        Experiment point = ExperimentYaml.point(e, points.get(i), "");
        List<Future<List<ExperimentResult>>> reps = new ArrayList<>();
        for (int r = 0; r < replications; r++) {
          long seed = SweepPoints.seed(e.seed(), i, r);
          Experiment seeded = point.toBuilder().seed(seed).build();
          reps.add(pool.submit(() -> runOne(seeded)));
        }
        futures.put(i, reps);
      }
      int done = 0;
      for (Map.Entry<Integer, List<Future<List<ExperimentResult>>>> entry : futures.entrySet()) {
        List<List<ExperimentResult>> reps = new ArrayList<>();
        String error = null;
        for (Future<List<ExperimentResult>> f : entry.getValue()) {
          try {
            reps.add(get(f));
          } catch (SimulationFailedException ex) {
            // One point's failure must not lose the others: record it and go on.
            error = error == null ? ex.getMessage() : error;
          }
        }
        int i = entry.getKey();
        ObjectNode document;
        if (error != null) {
          failed.add("point " + i + " " + points.get(i) + ": " + error);
          document = failedPointDocument(source, e, hash, i, points.get(i), error);
        } else {
          document = pointDocument(source, e, hash, i, points.get(i), reps);
        }
        // what merge checks a shard set against: how many points the sweep has, which shard ran this one
        document.put("points_total", points.size());
        document.put("shard", options.shard() + "/" + options.shards());
        write(pointFile(out, i), ResultJson.write(document));
        done++;
        double elapsed = (System.nanoTime() - start) / 1e9;
        double eta = elapsed / done * (todo.size() - done);
        progress.accept(String.format(java.util.Locale.ROOT,
            "sweep: point %d/%d done (%d of %d to run in this shard, %d skipped), %.1f s elapsed, ETA %.1f s",
            i + 1, points.size(), done, todo.size(), skipped, elapsed, eta));
      }
    } finally {
      pool.shutdownNow();
    }
    boolean complete = true;
    for (int i = 0; i < points.size(); i++) {
      complete &= Files.exists(pointFile(out, i));
    }
    if (complete) {
      write(out.resolve("sweep.json"), ResultJson.write(merge(List.of(out), false)));
    }
    return new Outcome(points.size(), todo.size(), skipped, complete, List.copyOf(failed));
  }

  private List<ExperimentResult> runOne(Experiment seeded) {
    List<ExperimentResult> results = new ArrayList<>();
    results.add(runner.run(seeded, "base"));
    for (String variant : seeded.variants().keySet()) {
      results.add(runner.run(ExperimentYaml.variant(seeded, variant), variant));
    }
    return results;
  }

  private static <T> T get(Future<T> f) {
    try {
      return f.get();
    } catch (InterruptedException ex) {
      Thread.currentThread().interrupt();
      throw new SimulationFailedException("sweep interrupted", ex);
    } catch (ExecutionException ex) {
      if (ex.getCause() instanceof RuntimeException re) {
        throw re;
      }
      throw new SimulationFailedException("sweep run failed: " + ex.getCause(), ex.getCause());
    }
  }

  private static boolean finished(Path file, String hash) {
    if (!Files.exists(file)) {
      return false;
    }
    try {
      JsonNode n = ResultJson.MAPPER.readTree(file.toFile());
      // a failed point is not finished: resume runs it again
      return hash.equals(n.path("sweep_hash").asText()) && !n.has("error");
    } catch (IOException ex) {
      return false; // unreadable: run it again
    }
  }

  /** {@code {sweep_hash, point, overrides, error}}: a point whose run failed. */
  static ObjectNode failedPointDocument(String source, Experiment e, String hash, int index,
      Map<String, String> overrides, String error) {
    ObjectNode o = ResultJson.MAPPER.createObjectNode();
    o.put("experiment", e.name());
    o.put("source", source);
    o.put("sweep_hash", hash);
    o.put("point", index);
    ObjectNode ov = o.putObject("overrides");
    overrides.forEach(ov::put);
    o.put("error", error);
    return o;
  }

  /** {@code {sweep_hash, point, overrides, replications: [{seed, runs}], summary}}. */
  static ObjectNode pointDocument(String source, Experiment e, String hash, int index, Map<String, String> overrides,
      List<List<ExperimentResult>> reps) {
    ObjectNode o = ResultJson.MAPPER.createObjectNode();
    o.put("experiment", e.name());
    o.put("source", source);
    o.put("sweep_hash", hash);
    o.put("point", index);
    ObjectNode ov = o.putObject("overrides");
    overrides.forEach(ov::put);
    ArrayNode replications = o.putArray("replications");
    for (List<ExperimentResult> runs : reps) {
      ObjectNode r = replications.addObject();
      r.put("seed", runs.get(0).seed());
      ArrayNode list = r.putArray("runs");
      runs.forEach(run -> list.add(ResultJson.run(run)));
    }
    o.set("summary", summary(reps));
    return o;
  }

  /**
   * Per variant and workload figure: {@code {mean, ci95, n}}; per non-base variant, {@code paired}:
   * the per-replication difference to the base, {@code {mean, ci95, n}}.
   */
  static ObjectNode summary(List<List<ExperimentResult>> reps) {
    // variant -> "vm/workload.figure" -> values per replication
    Map<String, Map<String, List<Double>>> values = new LinkedHashMap<>();
    for (List<ExperimentResult> runs : reps) {
      for (ExperimentResult r : runs) {
        Map<String, List<Double>> byFigure = values.computeIfAbsent(r.variant(), k -> new TreeMap<>());
        for (ExperimentResult.WorkloadResult w : r.workloads()) {
          w.figures().forEach((figure, v) -> byFigure.computeIfAbsent(w.vm() + "/" + w.name() + "." + figure,
              k -> new ArrayList<>()).add(v.doubleValue()));
        }
      }
    }
    ObjectNode summary = ResultJson.MAPPER.createObjectNode();
    Map<String, List<Double>> base = values.getOrDefault("base", Map.of());
    values.forEach((variant, byFigure) -> {
      ObjectNode v = summary.putObject(variant);
      byFigure.forEach((figure, list) -> estimate(v.putObject(figure), list));
      if (!variant.equals("base")) {
        ObjectNode paired = v.putObject("paired");
        byFigure.forEach((figure, list) -> {
          List<Double> b = base.get(figure);
          if (b != null && b.size() == list.size()) {
            List<Double> diff = new ArrayList<>();
            for (int i = 0; i < list.size(); i++) {
              diff.add(list.get(i) - b.get(i));
            }
            estimate(paired.putObject(figure), diff);
          }
        });
      }
    });
    return summary;
  }

  private static void estimate(ObjectNode n, List<Double> list) {
    double[] a = list.stream().mapToDouble(Double::doubleValue).toArray();
    Statistics.Estimate est = Statistics.estimate(a);
    n.put("mean", est.mean());
    n.put("ci95", est.ci95());
    n.put("n", est.n());
  }

  /**
   * {@code sweep.json} from the point files under {@code dirs} (shards of one sweep): {@code
   * {experiment, sweep_hash, points_total, shards, partial, points: [{point, overrides, summary}]}},
   * points in index order; a partial merge also lists {@code missing_points}.
   *
   * @param allowPartial merge an incomplete set (points missing) or one that gives a point twice
   *     (a shard directory given twice, two runs of one shard); the result says {@code partial}
   * @throws UserInputException when the directories hold different sweeps or conflicting points,
   *     or, without {@code allowPartial}, when points are missing or given twice
   */
  public static ObjectNode merge(List<Path> dirs, boolean allowPartial) {
    TreeMap<Integer, JsonNode> points = new TreeMap<>();
    Map<Integer, Path> pointDirs = new TreeMap<>();
    TreeSet<String> shards = new TreeSet<>();
    List<String> duplicates = new ArrayList<>();
    String hash = null;
    String experiment = "";
    long total = -1;
    Map<Path, Path> seenDirs = new LinkedHashMap<>();
    for (Path dir : dirs) {
      Path pointsDir = dir.resolve("points");
      if (!Files.isDirectory(pointsDir)) {
        throw new UserInputException("cannot merge [" + dir + "]: no points/ directory (not a sweep output)");
      }
      Path real;
      try {
        real = dir.toRealPath();
      } catch (IOException ex) {
        real = dir.toAbsolutePath().normalize();
      }
      Path earlier = seenDirs.putIfAbsent(real, dir);
      if (earlier != null) {
        duplicates.add("[" + dir + "] is given twice" + (earlier.equals(dir) ? "" : " (as [" + earlier + "])"));
        continue;
      }
      List<Path> files;
      try (var stream = Files.list(pointsDir)) {
        files = stream.filter(p -> p.getFileName().toString().matches("point-\\d+\\.json")).sorted().toList();
      } catch (IOException ex) {
        throw new UncheckedIOException("cannot list [" + pointsDir + "]", ex);
      }
      for (Path file : files) {
        JsonNode n;
        try {
          n = ResultJson.MAPPER.readTree(file.toFile());
        } catch (IOException ex) {
          String why = ex instanceof com.fasterxml.jackson.core.JsonProcessingException json
              ? "not JSON: " + json.getOriginalMessage().lines().findFirst().orElse("") : "unreadable";
          throw new UserInputException("cannot merge [" + file + "]: not a point file ("
              + org.lockvisor.experiment.model.Problem.echo(why) + ")");
        }
        String h = n.path("sweep_hash").asText();
        if (hash == null) {
          hash = h;
          experiment = n.path("experiment").asText();
        } else if (!hash.equals(h)) {
          throw new UserInputException("cannot merge [" + file + "]: it belongs to sweep [" + h + "], not [" + hash
              + "]");
        }
        long fileTotal = n.path("points_total").asLong(-1);
        if (fileTotal >= 0 && total >= 0 && fileTotal != total) {
          throw new UserInputException("cannot merge [" + file + "]: its sweep has " + fileTotal + " points, another"
              + " file's has " + total);
        }
        total = Math.max(total, fileTotal);
        if (n.hasNonNull("shard")) {
          shards.add(n.path("shard").asText());
        }
        int index = n.path("point").asInt();
        JsonNode previous = points.putIfAbsent(index, n);
        if (previous != null) {
          if (!previous.path("summary").equals(n.path("summary"))) {
            throw new UserInputException("cannot merge [" + file + "]: point " + index + " differs from another copy");
          }
          duplicates.add("point " + index + " is in both [" + pointDirs.get(index) + "] and [" + dir + "]");
        } else {
          pointDirs.put(index, dir);
        }
      }
    }
    List<Integer> missing = new ArrayList<>();
    if (total < 0) {
      missing.add(-1); // unknown: point files of a lockvisor before 0.1 record no total
    } else {
      for (int i = 0; i < total; i++) {
        if (!points.containsKey(i)) {
          missing.add(i);
        }
      }
    }
    boolean partial = !missing.isEmpty() || !duplicates.isEmpty();
    if (partial && !allowPartial) {
      String why;
      if (!duplicates.isEmpty()) {
        why = "the shard set is duplicated: " + duplicates.get(0)
            + (duplicates.size() > 1 ? " (and " + (duplicates.size() - 1) + " more)" : "");
      } else if (total < 0) {
        why = "its point files do not record how many points the sweep has";
      } else {
        why = "the shard set is incomplete: " + missing.size() + " of " + total + " points missing ("
            + abbreviated(missing) + ")" + missingShards(shards);
      }
      throw new UserInputException("cannot merge " + dirs + ": " + why + "; give every shard once, or add"
          + " --allow-partial for a result marked partial");
    }
    ObjectNode root = ResultJson.MAPPER.createObjectNode();
    root.put("experiment", experiment);
    root.put("sweep_hash", hash == null ? "" : hash);
    if (total >= 0) {
      root.put("points_total", total);
    }
    ArrayNode shardList = root.putArray("shards");
    shards.forEach(shardList::add);
    root.put("partial", partial);
    if (partial && total >= 0 && !missing.isEmpty()) {
      ArrayNode m = root.putArray("missing_points");
      missing.forEach(m::add);
    }
    ArrayNode list = root.putArray("points");
    List<Integer> failures = new ArrayList<>();
    points.forEach((index, n) -> {
      ObjectNode p = list.addObject();
      p.put("point", index);
      p.set("overrides", n.path("overrides"));
      if (n.has("error")) {
        p.put("error", n.path("error").asText());
        failures.add(index);
      } else {
        p.set("summary", n.path("summary"));
      }
    });
    if (!failures.isEmpty()) {
      ArrayNode f = root.putArray("failed_points");
      failures.forEach(f::add);
    }
    return root;
  }

  private static String abbreviated(List<Integer> indexes) {
    String shown = indexes.subList(0, Math.min(10, indexes.size())).toString();
    return "points " + shown.substring(1, shown.length() - 1) + (indexes.size() > 10 ? ", ..." : "");
  }

  /** "; shard 1/2 not given" when the shards seen all split the sweep the same way. */
  private static String missingShards(TreeSet<String> shards) {
    Set<Integer> counts = new TreeSet<>();
    Set<Integer> seen = new TreeSet<>();
    for (String s : shards) {
      String[] parts = s.split("/");
      seen.add(Integer.parseInt(parts[0]));
      counts.add(Integer.parseInt(parts[1]));
    }
    if (counts.size() != 1) {
      return "";
    }
    int n = counts.iterator().next();
    List<String> absent = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      if (!seen.contains(i)) {
        absent.add(i + "/" + n);
      }
    }
    return absent.isEmpty() ? "" : "; shard" + (absent.size() > 1 ? "s " : " ") + String.join(", ", absent)
        + " not given";
  }

  private static void write(Path target, String content) {
    try {
      AtomicFiles.writeString(target, content + System.lineSeparator());
    } catch (IOException ex) {
      throw new UncheckedIOException("cannot write [" + target + "]", ex);
    }
  }
}

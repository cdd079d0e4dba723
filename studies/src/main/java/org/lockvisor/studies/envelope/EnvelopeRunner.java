package org.lockvisor.studies.envelope;

import static com.google.common.base.Preconditions.checkArgument;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.common.hash.Hashing;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.lockvisor.experiment.SimulationFailedException;
import org.lockvisor.experiment.UserInputException;
import org.lockvisor.experiment.runner.ResultJson;
import org.lockvisor.studies.envelope.Band;
import org.lockvisor.studies.envelope.Dimension;
import org.lockvisor.studies.envelope.EnvelopeSummary;
import org.lockvisor.studies.envelope.LatinHypercube;

/**
 * Runs a setup envelope: every (Latin hypercube sample, seed) pair is one run of the subject (a
 * reproduction, or an experiment file's variants), every sample with the same seeds (common random
 * numbers: the samples differ only in their setting). Runs go in parallel on {@code jobs} threads;
 * their results are keyed by their index, so the summary does not depend on the order they finish
 * in. With an output directory, each run is written atomically to {@code runs/sample-NNNN-seed-K.json}
 * beside {@code envelope-plan.json}; {@code --shard i/N} runs the samples whose index is i modulo
 * N, and {@link #read} merges shard directories (refusing an incomplete set unless asked), exactly
 * as a sweep's points.
 */
public final class EnvelopeRunner {

  public static final String PLAN_FILE = "envelope-plan.json";
  public static final String RUNS = "runs";

  private EnvelopeRunner() {}

  /**
   * What to run.
   *
   * @param kind {@code reproduction} or {@code sweep}
   * @param subject the reproduction's name or the experiment file
   * @param quick whether the reproduction runs its {@code --quick} form
   * @param dimensions the sampled parameters
   * @param samples how many Latin hypercube samples
   * @param seeds the seeds every sample runs with
   * @param seed the seed of the Latin hypercube
   * @param effect the quantity the PRCC headline and the scatter plots use; empty for the default
   *     (the first band of a derived column, else the first band)
   * @param fixed settings applied to every run besides the sampled ones (e.g. {@code --set})
   */
  public record Plan(String kind, String subject, boolean quick, ImmutableList<Dimension> dimensions, int samples,
      ImmutableList<Long> seeds, long seed, String effect, ImmutableList<String> fixed) {
    public Plan {
      checkArgument(samples >= 1, "an envelope needs at least one sample: %s", samples);
      checkArgument(!seeds.isEmpty(), "an envelope needs at least one seed");
      checkArgument(!dimensions.isEmpty(), "an envelope needs at least one parameter to vary");
      effect = effect == null ? "" : effect;
    }

    /** The samples, deterministic for the plan. */
    public ImmutableList<LatinHypercube.Sample> sampled() {
      return LatinHypercube.sample(dimensions, samples, seed);
    }

    public int runs() {
      return samples * seeds.size();
    }

    /** The plan as JSON, the identity shards are checked against. */
    public ObjectNode json() {
      ObjectNode n = ResultJson.MAPPER.createObjectNode().put("kind", kind).put("subject", subject).put("quick", quick)
          .put("samples", samples).put("seed", seed).put("effect", effect);
      ArrayNode s = n.putArray("seeds");
      seeds.forEach(s::add);
      ArrayNode d = n.putArray("dimensions");
      for (Dimension dim : dimensions) {
        ObjectNode o = d.addObject().put("name", dim.name());
        if (dim instanceof Dimension.Choice c) {
          o.put("type", "choice");
          c.values().forEach(o.putArray("values")::add);
        } else if (dim instanceof Dimension.Whole w) {
          o.put("type", "whole").put("low", w.low()).put("high", w.high()).put("log", w.log());
        } else {
          Dimension.Continuous c = (Dimension.Continuous) dim;
          o.put("type", "continuous").put("low", c.low()).put("high", c.high()).put("log", c.log());
        }
        o.put("source", dim.source());
      }
      ArrayNode f = n.putArray("fixed");
      fixed.forEach(f::add);
      return n;
    }

    /** The plan written by {@link #json()}. */
    public static Plan of(JsonNode n) {
      ImmutableList.Builder<Dimension> dims = ImmutableList.builder();
      for (JsonNode d : n.path("dimensions")) {
        String name = d.path("name").asText();
        String source = d.path("source").asText();
        switch (d.path("type").asText()) {
          case "choice" -> {
            List<String> values = new ArrayList<>();
            d.path("values").forEach(v -> values.add(v.asText()));
            dims.add(new Dimension.Choice(name, values, source));
          }
          case "whole" -> dims.add(new Dimension.Whole(name, d.path("low").asLong(), d.path("high").asLong(),
              d.path("log").asBoolean(), source));
          default -> dims.add(new Dimension.Continuous(name, d.path("low").asDouble(), d.path("high").asDouble(),
              d.path("log").asBoolean(), source));
        }
      }
      ImmutableList.Builder<Long> seeds = ImmutableList.builder();
      n.path("seeds").forEach(s -> seeds.add(s.asLong()));
      ImmutableList.Builder<String> fixed = ImmutableList.builder();
      n.path("fixed").forEach(f -> fixed.add(f.asText()));
      return new Plan(n.path("kind").asText(), n.path("subject").asText(), n.path("quick").asBoolean(), dims.build(),
          n.path("samples").asInt(), seeds.build(), n.path("seed").asLong(), n.path("effect").asText(),
          fixed.build());
    }

    public String hash() {
      return Hashing.sha256().hashString(ResultJson.write(json()), StandardCharsets.UTF_8).toString().substring(0, 16);
    }
  }

  /** One run of the subject at a setting and a seed: the bands it judged, with its simulated values. */
  @FunctionalInterface
  public interface Simulation {
    List<Band> run(Map<String, String> setting, long seed);
  }

  public record Options(int jobs, int shard, int shards, boolean resume) {
    public Options {
      checkArgument(jobs >= 1, "jobs must be positive: %s", jobs);
      checkArgument(shards >= 1 && shard >= 0 && shard < shards, "need 0 <= shard < shards: %s/%s", shard, shards);
    }
  }

  /** One (sample, seed) run: its bands, or the error that stopped it. */
  public record Run(int sample, int seedIndex, long seed, ImmutableList<Band> bands, String error) {}

  /** What a (shard of an) envelope did; {@code summary} is present when every run is in. */
  public record Outcome(int runs, int ran, int skipped, List<Run> results, List<String> failed,
      java.util.Optional<EnvelopeSummary> summary) {
    public boolean complete() {
      return summary.isPresent();
    }
  }

  /**
   * Runs {@code plan}'s share given by {@code options} with {@code simulation}; with {@code out}
   * (may be null) every run is written there. Returns the summary when every run of the plan is in
   * (in memory or in {@code out}).
   */
  public static Outcome run(Plan plan, Simulation simulation, Path out, Options options, Consumer<String> progress) {
    String hash = plan.hash();
    ImmutableList<LatinHypercube.Sample> samples = plan.sampled();
    if (out != null) {
      write(out.resolve(PLAN_FILE), ResultJson.write(plan.json().put("hash", hash)));
    }
    int k = plan.seeds().size();
    Map<Integer, Run> results = new TreeMap<>();
    List<Integer> todo = new ArrayList<>();
    int skipped = 0;
    for (int i = 0; i < samples.size(); i++) {
      if (i % options.shards() != options.shard()) {
        continue;
      }
      for (int j = 0; j < k; j++) {
        int index = i * k + j;
        if (options.resume() && out != null) {
          Run done = readRun(runFile(out, i, j), hash);
          if (done != null && done.error() == null) {
            results.put(index, done);
            skipped++;
            continue;
          }
        }
        todo.add(index);
      }
    }
    List<String> failed = new ArrayList<>();
    long start = System.nanoTime();
    ExecutorService pool = Executors.newFixedThreadPool(options.jobs(), r -> {
      Thread t = new Thread(r, "lockvisor-envelope");
      t.setDaemon(true);
      return t;
    });
    try {
      Map<Integer, Future<List<Band>>> futures = new LinkedHashMap<>();
      for (int index : todo) {
        Map<String, String> setting = samples.get(index / k).values();
        long seed = plan.seeds().get(index % k);
        futures.put(index, pool.submit(() -> simulation.run(setting, seed)));
      }
      int done = 0;
      for (Map.Entry<Integer, Future<List<Band>>> e : futures.entrySet()) {
        int index = e.getKey();
        int i = index / k;
        int j = index % k;
        Run run;
        try {
          run = new Run(i, j, plan.seeds().get(j), ImmutableList.copyOf(get(e.getValue())), null);
        } catch (SimulationFailedException ex) {
          run = new Run(i, j, plan.seeds().get(j), ImmutableList.of(), ex.getMessage());
          failed.add("sample " + i + " " + samples.get(i).values() + " seed " + plan.seeds().get(j) + ": "
              + ex.getMessage());
        }
        results.put(index, run);
        if (out != null) {
          ObjectNode doc = runJson(run, samples.get(i).values(), hash);
          doc.put("runs_total", plan.runs()).put("shard", options.shard() + "/" + options.shards());
          write(runFile(out, i, j), ResultJson.write(doc));
        }
        done++;
        double elapsed = (System.nanoTime() - start) / 1e9;
        progress.accept(String.format(Locale.ROOT,
            "envelope %s: sample %d/%d seed %d done (%d of %d to run in this shard, %d skipped), %.1f s elapsed,"
                + " ETA %.1f s", plan.subject(), i + 1, plan.samples(), plan.seeds().get(j), done, todo.size(),
            skipped, elapsed, elapsed / done * (todo.size() - done)));
      }
    } finally {
      pool.shutdownNow();
    }
    List<Run> all = new ArrayList<>(results.values());
    if (out != null && all.size() < plan.runs()) {
      // the other shards' runs, when they share this directory
      for (int index = 0; index < plan.runs(); index++) {
        if (!results.containsKey(index)) {
          Run r = readRun(runFile(out, index / k, index % k), hash);
          if (r != null) {
            results.put(index, r);
          }
        }
      }
      all = new ArrayList<>(results.values());
    }
    java.util.Optional<EnvelopeSummary> summary = all.size() == plan.runs()
        ? java.util.Optional.of(summarise(plan, all)) : java.util.Optional.empty();
    return new Outcome(plan.runs(), todo.size(), skipped, List.copyOf(all), List.copyOf(failed), summary);
  }

  /**
   * The summary of {@code runs} (one per (sample, seed) of the plan, or fewer for a partial merge):
   * each sample's value of a quantity is the mean of its successful runs.
   *
   * @throws UserInputException when no run succeeded (nothing to summarise) or the effect is not judged
   */
  public static EnvelopeSummary summarise(Plan plan, List<Run> runs) {
    ImmutableList<LatinHypercube.Sample> samples = plan.sampled();
    List<Band> template = runs.stream().filter(r -> r.error() == null && !r.bands().isEmpty()).findFirst()
        .map(Run::bands).orElseThrow(() -> new UserInputException("envelope " + plan.subject()
            + ": no run succeeded, nothing to summarise"));
    List<Map<String, double[]>> sums = new ArrayList<>();
    for (int i = 0; i < samples.size(); i++) {
      sums.add(new LinkedHashMap<>());
    }
    for (Run r : runs) {
      if (r.error() != null) {
        continue;
      }
      for (Band b : r.bands()) {
        double[] acc = sums.get(r.sample()).computeIfAbsent(b.key(), x -> new double[2]);
        acc[0] += b.simulated();
        acc[1]++;
      }
    }
    ImmutableList.Builder<ImmutableMap<String, Double>> values = ImmutableList.builder();
    for (Map<String, double[]> m : sums) {
      ImmutableMap.Builder<String, Double> v = ImmutableMap.builder();
      for (Band b : template) {
        double[] acc = m.get(b.key());
        v.put(b.key(), acc == null || acc[1] == 0 ? Double.NaN : acc[0] / acc[1]);
      }
      values.add(v.buildOrThrow());
    }
    String effect = plan.effect().isEmpty() ? defaultEffect(template) : plan.effect();
    if (template.stream().noneMatch(b -> b.key().equals(effect))) {
      throw new UserInputException("--effect [" + effect + "] is not a judged quantity of " + plan.subject()
          + "; known: " + template.stream().map(Band::key).toList());
    }
    return new EnvelopeSummary(plan.dimensions(), samples, plan.seeds(), ImmutableList.copyOf(template),
        values.build(), effect);
  }

  /** The first band of a derived column (ratio, reduction...), else the first patched one, else the first. */
  public static String defaultEffect(List<Band> bands) {
    return bands.stream().filter(b -> !b.column().equals(Band.BASELINE) && !b.column().equals(Band.PATCHED))
        .findFirst().or(() -> bands.stream().filter(b -> b.column().equals(Band.PATCHED)).findFirst())
        .orElse(bands.get(0)).key();
  }

  /** A plan and its runs read from shard directories. */
  public record Merged(Plan plan, List<Run> runs, boolean partial) {}

  /** Whether {@code dir} holds an envelope (its plan file). */
  public static boolean isEnvelope(Path dir) {
    return Files.isRegularFile(dir.resolve(PLAN_FILE));
  }

  /**
   * The runs of the envelope shards in {@code dirs}: every one must hold the same plan; every run of
   * the plan must be given exactly once unless {@code allowPartial}.
   *
   * @throws UserInputException naming the different plan, the missing runs and shards, or a duplicate
   */
  public static Merged read(List<Path> dirs, boolean allowPartial) {
    Plan plan = null;
    String hash = null;
    Map<Integer, Run> runs = new TreeMap<>();
    TreeSet<String> duplicates = new TreeSet<>();
    TreeSet<String> shardsSeen = new TreeSet<>();
    for (Path dir : dirs) {
      JsonNode p = readTree(dir.resolve(PLAN_FILE));
      if (hash == null) {
        hash = p.path("hash").asText();
        plan = planOf(dir.resolve(PLAN_FILE), p);
      } else if (!hash.equals(p.path("hash").asText())) {
        throw new UserInputException("[" + dir + "] holds another envelope (plan " + p.path("hash").asText() + ", not "
            + hash + "); merge the shards of one envelope");
      }
      Path runDir = dir.resolve(RUNS);
      if (!Files.isDirectory(runDir)) {
        continue;
      }
      try (Stream<Path> files = Files.list(runDir)) {
        for (Path f : files.filter(x -> x.getFileName().toString().endsWith(".json")).sorted().toList()) {
          JsonNode n = readTree(f);
          if (!hash.equals(n.path("envelope_hash").asText())) {
            throw new UserInputException("[" + f + "] belongs to another envelope");
          }
          Run r = runOf(n);
          shardsSeen.add(n.path("shard").asText());
          int index = r.sample() * plan.seeds().size() + r.seedIndex();
          if (runs.put(index, r) != null) {
            duplicates.add("sample " + r.sample() + " seed " + r.seed());
          }
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot list [" + runDir + "]", e);
      }
    }
    List<Integer> missing = new ArrayList<>();
    for (int i = 0; i < plan.runs(); i++) {
      if (!runs.containsKey(i)) {
        missing.add(i);
      }
    }
    if (!allowPartial && !duplicates.isEmpty()) {
      throw new UserInputException("envelope runs given twice: " + duplicates + " (merge each shard once, or"
          + " --allow-partial)");
    }
    if (!allowPartial && !missing.isEmpty()) {
      int k = plan.seeds().size();
      TreeSet<Integer> samples = new TreeSet<>();
      missing.forEach(i -> samples.add(i / k));
      throw new UserInputException("incomplete envelope: " + missing.size() + " of " + plan.runs()
          + " runs missing (samples " + abbreviated(new ArrayList<>(samples)) + "; shards given: " + shardsSeen
          + "); merge every shard, or --allow-partial");
    }
    return new Merged(plan, new ArrayList<>(runs.values()), !missing.isEmpty() || !duplicates.isEmpty());
  }

  private static String abbreviated(List<Integer> xs) {
    return xs.size() <= 10 ? xs.toString() : xs.subList(0, 10) + " and " + (xs.size() - 10) + " more";
  }

  static Path runFile(Path out, int sample, int seedIndex) {
    return out.resolve(RUNS).resolve(String.format(Locale.ROOT, "sample-%04d-seed-%d.json", sample, seedIndex));
  }

  static ObjectNode runJson(Run run, Map<String, String> setting, String hash) {
    ObjectNode n = ResultJson.MAPPER.createObjectNode().put("envelope_hash", hash).put("sample", run.sample())
        .put("seed_index", run.seedIndex()).put("seed", run.seed());
    ObjectNode s = n.putObject("setting");
    setting.forEach(s::put);
    if (run.error() != null) {
      n.put("error", run.error());
    }
    ArrayNode bands = n.putArray("bands");
    for (Band b : run.bands()) {
      ObjectNode o = bands.addObject().put("key", b.key()).put("quantity", b.quantity()).put("column", b.column());
      number(o, "published", b.published());
      number(o, "low", b.low());
      number(o, "high", b.high());
      number(o, "simulated", b.simulated());
      o.put("baselineOnly", b.baselineOnly());
    }
    return n;
  }

  private static void number(ObjectNode n, String field, double v) {
    if (Double.isNaN(v)) {
      n.putNull(field);
    } else if (Double.isInfinite(v)) {
      n.put(field, v > 0 ? "Infinity" : "-Infinity");
    } else {
      n.put(field, v);
    }
  }

  private static double number(JsonNode n, double missing) {
    if (n == null || n.isNull() || n.isMissingNode()) {
      return missing;
    }
    if (n.isTextual()) {
      return n.asText().startsWith("-") ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
    }
    return n.asDouble();
  }

  static Run runOf(JsonNode n) {
    ImmutableList.Builder<Band> bands = ImmutableList.builder();
    for (JsonNode b : n.path("bands")) {
      bands.add(new Band(b.path("key").asText(), b.path("quantity").asText(), b.path("column").asText(),
          number(b.get("published"), Double.NaN), number(b.get("low"), Double.NEGATIVE_INFINITY),
          number(b.get("high"), Double.POSITIVE_INFINITY), number(b.get("simulated"), Double.NaN),
          b.path("baselineOnly").asBoolean()));
    }
    return new Run(n.path("sample").asInt(), n.path("seed_index").asInt(), n.path("seed").asLong(), bands.build(),
        n.has("error") ? n.path("error").asText() : null);
  }

  private static Run readRun(Path file, String hash) {
    if (!Files.exists(file)) {
      return null;
    }
    try {
      JsonNode n = ResultJson.MAPPER.readTree(file.toFile());
      return hash.equals(n.path("envelope_hash").asText()) ? runOf(n) : null;
    } catch (IOException | IllegalArgumentException e) {
      return null; // unreadable: run it again
    }
  }

  private static JsonNode readTree(Path file) {
    try {
      JsonNode n = ResultJson.MAPPER.readTree(file.toFile());
      if (n == null || !n.isObject()) {
        throw new UserInputException("cannot read [" + file + "]: it is not a JSON object lockvisor wrote"
            + " (empty or cut short?); run that shard again");
      }
      return n;
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      var at = e.getLocation();
      throw new UserInputException("cannot read [" + file + "]: not JSON as lockvisor writes it"
          + (at == null ? "" : " (broken at line " + at.getLineNr() + ", column " + at.getColumnNr() + ")")
          + "; it was cut short or changed by hand: run that shard again");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read [" + file + "]", e);
    }
  }

  /** The plan of a plan file, refusing one that is JSON but no plan lockvisor wrote. */
  private static Plan planOf(Path file, JsonNode n) {
    try {
      return Plan.of(n);
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new UserInputException("cannot read [" + file + "]: not an envelope plan as lockvisor writes it ("
          + e.getMessage() + "); run that shard again");
    }
  }

  /**
   * Before {@code --resume} into {@code out}: the plan already there (if any) must be {@code plan},
   * else its runs belong to another envelope and a merge would refuse them later. Refused with the
   * first differences named, unless {@code force}: then the other plan's runs are removed and this
   * plan runs from the start.
   *
   * @throws UserInputException naming what differs (samples, seeds, parameters, settings, effect)
   */
  public static void checkResume(Plan plan, Path out, boolean force) {
    Path file = out.resolve(PLAN_FILE);
    if (!Files.isRegularFile(file)) {
      return;
    }
    JsonNode n = readTree(file);
    String hash = plan.hash();
    if (hash.equals(n.path("hash").asText())) {
      return;
    }
    if (!force) {
      ObjectNode now = plan.json();
      List<String> differences = new ArrayList<>();
      for (String field : List.of("kind", "subject", "quick", "samples", "seed", "seeds", "dimensions", "fixed",
          "effect")) {
        JsonNode before = n.path(field);
        if (!before.equals(now.path(field))) {
          differences.add(describe(field) + " " + abbreviate(now.path(field)) + ", not " + abbreviate(before));
        }
      }
      if (differences.isEmpty()) {
        differences.add("plan " + hash + ", not " + n.path("hash").asText());
      }
      throw new UserInputException("--resume: [" + out + "] holds the runs of another envelope plan: "
          + String.join("; ", differences) + "; give the options it ran with, another --out, or --force to"
          + " replace its runs with this plan's");
    }
    Path runs = out.resolve(RUNS);
    if (Files.isDirectory(runs)) {
      try (Stream<Path> files = Files.list(runs)) {
        for (Path f : files.filter(x -> x.getFileName().toString().endsWith(".json")).toList()) {
          Files.delete(f);
        }
      } catch (IOException e) {
        throw new UncheckedIOException("cannot remove the other plan's runs in [" + runs + "]", e);
      }
    }
  }

  private static String describe(String field) {
    return switch (field) {
      case "samples" -> "--samples";
      case "seeds" -> "seeds (--seeds, --seed)";
      case "seed" -> "--seed";
      case "dimensions" -> "parameters (--param)";
      case "fixed" -> "settings (--set)";
      case "effect" -> "--effect";
      case "quick" -> "--quick";
      default -> field;
    };
  }

  private static String abbreviate(JsonNode n) {
    String text = n.isTextual() ? "[" + n.asText() + "]" : n.toString();
    return text.length() <= 80 ? text : text.substring(0, 77) + "...";
  }

  private static <T> T get(Future<T> f) {
    try {
      return f.get();
    } catch (InterruptedException ex) {
      Thread.currentThread().interrupt();
      throw new SimulationFailedException("envelope interrupted", ex);
    } catch (ExecutionException ex) {
      if (ex.getCause() instanceof RuntimeException re) {
        throw re;
      }
      throw new SimulationFailedException("envelope run failed: " + ex.getCause(), ex.getCause());
    }
  }

  private static void write(Path target, String content) {
    try {
      org.lockvisor.experiment.io.AtomicFiles.writeString(target, content + System.lineSeparator());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write [" + target + "]", e);
    }
  }
}

package org.lockvisor.cli;

import com.google.common.collect.ImmutableList;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.lockvisor.arch.spi.ArchProfile;
import org.lockvisor.arch.spi.Cost;
import org.lockvisor.arch.spi.CostKey;
import org.lockvisor.experiment.UserInputException;
import org.lockvisor.experiment.model.Experiment;
import org.lockvisor.experiment.model.ExperimentYaml;
import org.lockvisor.experiment.runner.ExperimentResult;
import org.lockvisor.experiment.runner.Runner;
import org.lockvisor.reproductions.api.WhatIf;
import org.lockvisor.studies.envelope.Band;
import org.lockvisor.studies.envelope.Dimension;
import org.lockvisor.studies.envelope.EnvelopeRunner;
import org.lockvisor.studies.envelope.RangeSpec;

/**
 * An experiment file as the subject of a setup envelope ({@code sweep FILE --envelope}): its
 * sampled parameters are {@code --set} paths with the range given on the command line ({@code
 * --param 'vms[0].vcpus=2..16'}) or arch profile costs ({@code --param
 * 'cost.x86_64-kvm.EXIT_USERSPACE=5000..15000:log'}, or the estimate's own range without one, a
 * range that must lie inside the estimate's); its quantities are the figures named by {@code
 * --band KEY[=LOW..HIGH][@PUBLISHED]}, where KEY is {@code <variant>.<vm>/<workload>.<figure>}
 * ({@code base} for the experiment as written) or {@code ratio.<variant>.<vm>/<workload>.<figure>}
 * (the variant over the base, run on the same seed). Every run runs the base and every variant.
 */
final class SweepEnvelope {

  private static final Pattern BAND = Pattern.compile("([^=@]+)(?:=([^@]+))?(?:@(.+))?");
  private static final String NUM = "[-+]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(?:[eE][-+]?[0-9]+)?";
  private static final Pattern RANGE = Pattern.compile("(" + NUM + ")\\.\\.(" + NUM + ")");

  private final Path file;
  private final Runner runner;
  private final Experiment experiment;
  private final List<String> fixed;
  private final ImmutableList<Dimension> dimensions;
  private final ImmutableList<Band> bands;
  private final Map<String, ArchProfile> profiles;

  /**
   * Checks everything: the parameters, their ranges, the bands' keys against the experiment's
   * variants, and every sample's experiment (bound and validated) before anything runs.
   */
  SweepEnvelope(Path file, Runner runner, List<String> fixed, Long seed, List<String> params,
      List<String> bandSpecs) {
    this.file = file;
    this.runner = runner;
    this.fixed = List.copyOf(fixed);
    this.experiment = runner.validateTree(file.toString(), ExperimentFiles.load(file, CostSettings.paths(fixed), seed));
    if (!experiment.sweep().isEmpty()) {
      throw new UserInputException(file + ": --envelope samples the --param ranges; the file's [sweep] would not take"
          + " effect (run it without --envelope, or remove the sweep)");
    }
    if (params.isEmpty()) {
      throw new UserInputException("--envelope of an experiment file needs --param PATH=LOW..HIGH (or"
          + " cost.<profile>.<KEY>), e.g. --param 'vms[0].vcpus=2..16'");
    }
    if (bandSpecs.isEmpty()) {
      throw new UserInputException("--envelope of an experiment file needs --band KEY[=LOW..HIGH][@PUBLISHED]: the"
          + " figures to judge, e.g. --band 'base.vm0/fio.iops=90000..130000@120000'");
    }
    this.profiles = new LinkedHashMap<>();
    runner.plugins().arches().forEach((name, f) -> profiles.put(name, f.create()));
    Set<String> seen = new LinkedHashSet<>();
    ImmutableList.Builder<Dimension> dims = ImmutableList.builder();
    for (String p : params) {
      RangeSpec spec = RangeSpec.parse(p);
      if (!seen.add(spec.name())) {
        throw new UserInputException("--param [" + spec.name() + "] is given twice");
      }
      dims.add(spec.name().startsWith("cost.") ? cost(spec) : spec.dimension("--param " + p));
    }
    this.dimensions = dims.build();
    Set<String> variants = new LinkedHashSet<>();
    variants.add("base");
    variants.addAll(experiment.variants().keySet());
    ImmutableList.Builder<Band> b = ImmutableList.builder();
    Set<String> keys = new LinkedHashSet<>();
    for (String s : bandSpecs) {
      Band band = band(s, variants);
      if (!keys.add(band.key())) {
        throw new UserInputException("--band [" + band.key() + "] is given twice");
      }
      b.add(band);
    }
    this.bands = b.build();
    for (String f : fixed) {
      String name = f.contains("=") ? f.substring(0, f.indexOf('=')) : f;
      if (seen.contains(name)) {
        throw new UserInputException("--set [" + f + "]: [" + name + "] is sampled by --param");
      }
    }
  }

  ImmutableList<Dimension> dimensions() {
    return dimensions;
  }

  /** Binds and validates the experiment of every sample, and its cost what-if (no run). */
  void check(List<org.lockvisor.studies.envelope.LatinHypercube.Sample> samples) {
    for (var s : samples) {
      prepare(s.values(), experiment.seed());
    }
  }

  private Dimension cost(RangeSpec spec) {
    String[] parts = spec.name().split("\\.", -1);
    if (parts.length != 3 || !profiles.containsKey(parts[1])) {
      throw new UserInputException("--param [" + spec.spec() + "]: expected cost.<profile>.<COST_KEY> of a known"
          + " profile " + profiles.keySet());
    }
    CostKey key;
    try {
      key = CostKey.valueOf(parts[2]);
    } catch (IllegalArgumentException e) {
      throw new UserInputException("--param [" + spec.spec() + "]: unknown cost key [" + parts[2] + "]");
    }
    Cost c = profiles.get(parts[1]).costs().cost(key);
    if (c.range().isEmpty()) {
      return spec.dimension("--param " + spec.spec() + " (" + parts[1] + " " + key + " " + c.source() + ")");
    }
    Cost.Range r = c.range().get();
    Dimension declared = key.unit() == CostKey.Unit.COUNT
        ? new Dimension.Whole(spec.name(), (long) r.low(), (long) r.high(), r.spansDecades(), c.source().toString())
        : new Dimension.Continuous(spec.name(), r.low(), r.high(), r.spansDecades(), c.source().toString());
    return spec.within(declared, parts[1] + " " + key);
  }

  private static Band band(String spec, Set<String> variants) {
    Matcher m = BAND.matcher(spec);
    if (!m.matches()) {
      throw new UserInputException("--band [" + spec + "]: expected KEY[=LOW..HIGH][@PUBLISHED]");
    }
    String key = m.group(1).trim();
    boolean ratio = key.startsWith("ratio.");
    String rest = ratio ? key.substring("ratio.".length()) : key;
    int dot = rest.indexOf('.');
    String variant = dot < 0 ? "" : rest.substring(0, dot);
    if (dot < 0 || !variants.contains(variant) || rest.indexOf('/') < 0) {
      throw new UserInputException("--band [" + spec + "]: KEY is <variant>.<vm>/<workload>.<figure> or ratio.<variant>."
          + "<vm>/<workload>.<figure>, variant one of " + variants);
    }
    if (ratio && variant.equals("base")) {
      throw new UserInputException("--band [" + spec + "]: a ratio is of a variant over the base; variants: "
          + variants.stream().filter(v -> !v.equals("base")).toList());
    }
    double low = Double.NEGATIVE_INFINITY;
    double high = Double.POSITIVE_INFINITY;
    if (m.group(2) != null) {
      Matcher r = RANGE.matcher(m.group(2).trim());
      if (!r.matches() || !(Double.parseDouble(r.group(1)) <= Double.parseDouble(r.group(2)))) {
        throw new UserInputException("--band [" + spec + "]: the band is LOW..HIGH with LOW <= HIGH");
      }
      low = Double.parseDouble(r.group(1));
      high = Double.parseDouble(r.group(2));
    }
    double published = Double.NaN;
    if (m.group(3) != null) {
      try {
        published = Double.parseDouble(m.group(3).trim());
      } catch (NumberFormatException e) {
        throw new UserInputException("--band [" + spec + "]: the published figure [" + m.group(3) + "] is not a number");
      }
      if (!Double.isFinite(published)) {
        throw new UserInputException("--band [" + spec + "]: the published figure must be finite");
      }
    }
    String column = ratio ? "ratio" : variant.equals("base") ? Band.BASELINE : variant;
    return new Band(key, key, column, published, low, high, Double.NaN, !ratio && variant.equals("base"));
  }

  /** The experiment and runner of one sample at {@code seed}. */
  private Prepared prepare(Map<String, String> setting, long seed) {
    List<String> sets = new ArrayList<>(fixed);
    setting.forEach((k, v) -> sets.add(k + "=" + v));
    Experiment e = runner.validateTree(file.toString(), ExperimentFiles.load(file, CostSettings.paths(sets), seed));
    WhatIf whatIf = CostSettings.parse(CostSettings.costs(sets), e, runner);
    return new Prepared(e, CostSettings.apply(runner, whatIf));
  }

  private record Prepared(Experiment experiment, Runner runner) {}

  /** One run: the base and every variant of the experiment at the sample's setting and the seed. */
  EnvelopeRunner.Simulation simulation() {
    return (setting, seed) -> {
      Prepared p = prepare(setting, seed);
      Map<String, Map<String, Double>> figures = new LinkedHashMap<>();
      figures.put("base", figures(p.runner().run(p.experiment(), "base")));
      for (String v : p.experiment().variants().keySet()) {
        figures.put(v, figures(p.runner().run(ExperimentYaml.variant(p.experiment(), v), v)));
      }
      List<Band> out = new ArrayList<>();
      for (Band b : bands) {
        out.add(b.withSimulated(value(b.key(), figures)));
      }
      return out;
    };
  }

  private static double value(String key, Map<String, Map<String, Double>> figures) {
    boolean ratio = key.startsWith("ratio.");
    String rest = ratio ? key.substring("ratio.".length()) : key;
    int dot = rest.indexOf('.');
    String variant = rest.substring(0, dot);
    String figure = rest.substring(dot + 1);
    if (!figures.get(variant).containsKey(figure)) {
      throw new UserInputException("--band [" + key + "]: the run has no figure [" + figure + "]; figures: "
          + figures.get(variant).keySet());
    }
    double v = figures.get(variant).get(figure);
    if (!ratio) {
      return v;
    }
    double base = figures.get("base").getOrDefault(figure, Double.NaN);
    return base == 0 ? Double.NaN : v / base;
  }

  private static Map<String, Double> figures(ExperimentResult r) {
    Map<String, Double> out = new LinkedHashMap<>();
    for (ExperimentResult.WorkloadResult w : r.workloads()) {
      w.figures().forEach((f, v) -> out.put(w.vm() + "/" + w.name() + "." + f, v.doubleValue()));
    }
    return out;
  }

  Experiment experiment() {
    return experiment;
  }
}

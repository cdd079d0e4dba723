package org.lockvisor.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSortedMap;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.lockvisor.experiment.UserInputException;
import org.lockvisor.experiment.check.RunChecks;
import org.lockvisor.experiment.io.AtomicFiles;
import org.lockvisor.experiment.model.Experiment;
import org.lockvisor.experiment.model.ExperimentYaml;
import org.lockvisor.experiment.model.InvalidExperimentException;
import org.lockvisor.experiment.model.Problem;
import org.lockvisor.experiment.runner.ExperimentResult;
import org.lockvisor.experiment.runner.ExperimentRunner;
import org.lockvisor.experiment.runner.Runner;
import org.lockvisor.reports.HtmlReport;
import org.lockvisor.reports.RunOutputs;
import org.lockvisor.reproductions.api.WhatIf;
import org.lockvisor.studies.calibrate.CalibrationReport;
import org.lockvisor.studies.calibrate.Calibrator;
import org.lockvisor.studies.calibrate.MeasuredFigures;
import org.lockvisor.studies.calibrate.ParameterRange;
import org.lockvisor.studies.calibrate.Predictor;
import org.lockvisor.studies.calibrate.SimulatedFigures;
import org.lockvisor.studies.envelope.Dimension;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code lockvisor calibrate FILE --target MEASURED --params P=LO..HI,... --out DIR}: fits the
 * named parameters so that the experiment's baseline ({@code base}, the experiment as written,
 * without variant overrides, unless {@code --baseline} names a variant) matches the measured
 * figures ({@link MeasuredFigures}: fio JSON, iperf3 -J, perf report, lock_stat, YAML of named
 * figures; compared with the simulation's figures of the same names, {@link SimulatedFigures}),
 * then predicts every other variant at the fitted point ({@link Predictor}). Every input is
 * checked before the first simulation: the parameters (a valid path or an applicable cost key of
 * a profile the experiment uses, both ends of the range accepted by the experiment's validation),
 * the target file's format, and the figures (present in the target, producible by the experiment).
 */
@Command(name = "calibrate", mixinStandardHelpOptions = true,
    description = "Fits parameters so the baseline matches measured figures, then predicts the other variants.")
public final class CalibrateCommand implements Callable<Integer> {

  static final String BASE = "base";

  @ParentCommand
  private Lockvisor lockvisor;

  @Spec
  private CommandSpec spec;

  @Parameters(index = "0", paramLabel = "FILE", description = "Experiment YAML file.")
  private Path file;

  @Option(names = "--target", required = true, paramLabel = "MEASURED",
      description = "Measured figures: fio --output-format=json(+), iperf3 -J, perf report --stdio text,"
          + " /proc/lock_stat, or a YAML mapping of figure names to numbers (see docs/envelopes.md).")
  private Path target;

  @Option(names = {"--params", "--param"}, required = true, split = ",", paramLabel = "P=LO..HI[:log]",
      description = "Parameters to fit (comma-separated or repeated; the syntax of --param of an envelope), each a"
          + " --set path or cost.<profile>.<KEY> of an estimate with its range, e.g. " + ParameterRange.EXAMPLE + ".")
  private List<String> params;

  @Option(names = "--figures", paramLabel = "NAME[,...]",
      description = "The target figures to fit (default: all the target has).")
  private String figures;

  @Option(names = "--baseline", paramLabel = "VARIANT", defaultValue = BASE,
      description = "The variant fitted (default: ${DEFAULT-VALUE}, the experiment without variant overrides).")
  private String baseline;

  @Option(names = "--seeds", paramLabel = "K", defaultValue = "3",
      description = "Seeds per point, the file's seed and the next K-1 (default: ${DEFAULT-VALUE}).")
  private int seeds;

  @Option(names = "--jobs", paramLabel = "J", defaultValue = "1",
      description = "Simulations run at once (default: ${DEFAULT-VALUE}); the result does not depend on it.")
  private int jobs;

  @Option(names = "--max-evaluations", paramLabel = "N", defaultValue = "60",
      description = "Points the optimiser may try at most (each runs K seeds; default: ${DEFAULT-VALUE}).")
  private int maxEvaluations;

  @Option(names = "--out", required = true, paramLabel = "DIR",
      description = "Write calibration.json, calibration.txt and report.html into DIR.")
  private Path out;

  @Option(names = "--force",
      description = "Write into an existing non-empty --out directory that is not a lockvisor output.")
  private boolean force;

  @Override
  public Integer call() {
    long started = System.nanoTime();
    if (seeds < 1 || seeds > 100) {
      throw new UserInputException("--seeds must be in [1, 100]: [" + seeds + "]");
    }
    if (jobs < 1 || jobs > 256) {
      throw new UserInputException("--jobs must be in [1, 256]: [" + jobs + "]");
    }
    if (maxEvaluations < 10 || maxEvaluations > 10_000) {
      throw new UserInputException("--max-evaluations must be in [10, 10000]: [" + maxEvaluations + "]");
    }
    List<ParameterRange> ranges = ParameterRange.parseAll("--params", params, true);
    ImmutableSortedMap<String, Double> measured = MeasuredFigures.parse(target.toString(), readTarget(target));
    ImmutableSortedMap<String, Double> fitted = selectFigures(measured);

    ExperimentRunner unchanged = lockvisor.injector().getInstance(ExperimentRunner.class);
    ObjectNode tree = ExperimentFiles.load(file, List.of(), null);
    Experiment e = unchanged.validateTree(file.toString(), tree);
    List<String> labels = new ArrayList<>();
    labels.add(BASE);
    labels.addAll(e.variants().keySet());
    if (!labels.contains(baseline)) {
      throw new UserInputException("--baseline [" + baseline + "] is not a variant of " + file + "; known: " + labels);
    }
    if (labels.size() < 2) {
      throw new UserInputException(file + " has no variant to predict besides its baseline [" + baseline
          + "]; add variants: to the file");
    }
    Map<String, Boolean> whole = new LinkedHashMap<>();
    List<Dimension.Continuous> dimensions = new ArrayList<>();
    for (ParameterRange p : ranges) {
      // a bare cost.<profile>.<KEY> takes its estimate's own range, as sweep --envelope does
      ParameterRange.Range r = p.range().orElseGet(() -> declaredRange(unchanged, p.name()));
      checkParameter(unchanged, tree, e, p.name(), r);
      whole.put(p.name(), r.whole());
      dimensions.add(ParameterRange.dimension(p.name(), r, "--params"));
    }
    Experiment fittedVariant = baseline.equals(BASE) ? e : ExperimentYaml.variant(e, baseline);
    SimulatedFigures.checkProducible(fittedVariant, fitted.keySet());
    OutputDirectory.prepare("--out", out, force, spec.commandLine().getErr());

    boolean perf = SimulatedFigures.needsPerf(fitted.keySet());
    Predictor.VariantModel model = (label, setting, seed) ->
        simulate(unchanged, tree, label, setting, whole, seed, perf);
    List<Long> seedList = new ArrayList<>();
    for (int i = 0; i < seeds; i++) {
      seedList.add(e.seed() + i);
    }
    Progress progress = new Progress(spec.commandLine().getErr());
    progress.step("calibrate: fitting " + whole.keySet() + " to " + fitted.size() + " figures", 0, 0);
    Calibrator.Fit fit = new Calibrator(dimensions, fitted, (setting, seed) -> model.simulate(baseline, setting, seed),
        seedList, maxEvaluations, jobs).fit();
    Predictor predictor = new Predictor(dimensions, model, seedList, jobs);
    List<CalibrationReport.Predicted> predicted = new ArrayList<>();
    int done = 0;
    for (String label : labels) {
      if (label.equals(baseline)) {
        continue;
      }
      progress.step("calibrate: predicting " + label, ++done, labels.size() - 1);
      for (Predictor.Figure f : predictor.predict(label, fit, List.copyOf(fitted.keySet())).figures()) {
        predicted.add(new CalibrationReport.Predicted(label, f, Optional.empty()));
      }
    }
    progress.finish();
    List<CalibrationReport.Parameter> fittedParameters = new ArrayList<>();
    for (Dimension.Continuous d : dimensions) {
      double v = fit.values().get(d.name());
      fittedParameters.add(new CalibrationReport.Parameter(d.name(), d.low(), d.high(), d.log(), "--params",
          whole.get(d.name()) ? Math.round(v) : v, fit.standardErrors().get(d.name())));
    }
    CalibrationReport report = new CalibrationReport(file.toString(), baseline, target.toString(),
        ImmutableList.copyOf(fittedParameters), fitted, fit.simulated(), fit.objective(), fit.evaluations(),
        ImmutableList.copyOf(seedList), ImmutableList.copyOf(predicted), (System.nanoTime() - started) / 1e9);
    PrintWriter stdout = spec.commandLine().getOut();
    report.text().forEach(stdout::println);
    stdout.flush();
    write(out.resolve(CalibrationReport.JSON_FILE), Json.write(Json.MAPPER.valueToTree(report.json())) + "\n");
    write(out.resolve(CalibrationReport.TEXT_FILE), String.join("\n", report.text()) + "\n");
    write(out.resolve("report.html"), report.html(new HtmlReport("lockvisor calibrate " + e.name())).render());
    return Lockvisor.EXIT_OK;
  }

  /** The target figures to fit: all of them, or those of {@code --figures}, each present in the target. */
  private ImmutableSortedMap<String, Double> selectFigures(ImmutableSortedMap<String, Double> measured) {
    if (figures == null) {
      return measured;
    }
    Map<String, Double> chosen = new LinkedHashMap<>();
    for (String name : figures.split(",", -1)) {
      String n = name.strip();
      Double v = measured.get(n);
      if (v == null) {
        throw new UserInputException("--figures: the target " + target + " has no figure ["
            + n + "]; it has " + measured.keySet());
      }
      chosen.put(n, v);
    }
    return ImmutableSortedMap.copyOf(chosen);
  }

  /**
   * Refuses a parameter that is neither an applicable cost key of a profile the experiment uses nor
   * a valid path of the experiment, or whose range's ends the experiment's validation refuses.
   */
  private void checkParameter(ExperimentRunner runner, ObjectNode tree, Experiment e, String name,
      ParameterRange.Range r) {
    if (name.equals("seed")) {
      throw new UserInputException("--params: [seed] is the replications' (--seeds), not a parameter to fit");
    }
    if (name.startsWith("cost.")) {
      checkCostRange(runner, name, r);
    }
    for (double end : new double[] {r.low(), r.high()}) {
      String text = ParameterRange.text(end, r.whole());
      if (name.startsWith("cost.")) {
        try {
          CostSettings.parse(List.of(name + "=" + text), e, runner);
        } catch (UserInputException x) {
          throw new UserInputException("--params: " + x.getMessage());
        }
        continue;
      }
      ObjectNode copy = tree.deepCopy();
      Problem p = ExperimentYaml.set(copy, name, text);
      if (p != null) {
        throw new UserInputException("--params: [" + name + "] is not a parameter of " + file + ": " + p.message());
      }
      try {
        runner.validateTree(file.toString(), copy);
      } catch (InvalidExperimentException x) {
        throw new UserInputException("--params: [" + name + "=" + r + "] is outside what " + file + " accepts: "
            + Lockvisor.oneLine(String.join("; ", x.lines())));
      }
    }
  }

  /**
   * A cost is fitted only within the range its profile declares for it (an estimate's): a verified
   * constant, or a range reaching outside the estimate's, is refused.
   */
  private static void checkCostRange(ExperimentRunner runner, String name, ParameterRange.Range r) {
    String[] parts = name.split("\\.", -1);
    if (parts.length != 3 || !runner.plugins().arches().containsKey(parts[1])) {
      return; // CostSettings.parse names what is wrong
    }
    for (org.lockvisor.arch.spi.Cost c : runner.plugins().arches().get(parts[1]).create().costs().costs()) {
      if (c.key().name().equals(parts[2])) {
        org.lockvisor.arch.spi.Cost.Range declared = c.range().orElseThrow(() -> new UserInputException(
            "--params: cost [" + name + "] declares no range (it is not an estimate: " + c.source() + ")"));
        if (r.low() < declared.low() || r.high() > declared.high()) {
          throw new UserInputException("--params: range [" + name + "=" + r + "] lies outside the declared "
              + declared + " (" + c.source() + ")");
        }
      }
    }
  }

  /** The range an estimate declares for {@code cost.<profile>.<KEY>}; refused for anything else. */
  private static ParameterRange.Range declaredRange(ExperimentRunner runner, String name) {
    String[] parts = name.split("\\.", -1);
    if (!name.startsWith("cost.")) {
      throw new UserInputException("--params: [" + name + "] has no range; an experiment path needs"
          + " NAME=LOW..HIGH[:log] (only a cost.<profile>.<KEY> estimate brings its own), e.g. ["
          + ParameterRange.EXAMPLE + "]");
    }
    if (parts.length == 3 && runner.plugins().arches().containsKey(parts[1])) {
      for (org.lockvisor.arch.spi.Cost c : runner.plugins().arches().get(parts[1]).create().costs().costs()) {
        if (c.key().name().equals(parts[2])) {
          org.lockvisor.arch.spi.Cost.Range d = c.range().orElseThrow(() -> new UserInputException(
              "--params: cost [" + name + "] declares no range (it is not an estimate: " + c.source() + ")"));
          boolean whole = d.low() == Math.rint(d.low()) && d.high() == Math.rint(d.high());
          return new ParameterRange.Range(d.low(), d.high(), whole);
        }
      }
    }
    throw new UserInputException("--params: [" + name + "] is not cost.<profile>.<KEY> of a known profile and"
        + " cost; keys: lockvisor plugins --options <profile>");
  }

  /** One run of {@code label} at {@code setting} and {@code seed}: its figures ({@link SimulatedFigures}). */
  private Map<String, Double> simulate(ExperimentRunner unchanged, ObjectNode tree, String label,
      Map<String, String> setting, Map<String, Boolean> whole, long seed, boolean perf) {
    ObjectNode t;
    synchronized (tree) {
      t = tree.deepCopy();
    }
    List<String> costs = new ArrayList<>();
    setting.forEach((name, value) -> {
      String text = ParameterRange.text(Double.parseDouble(value), whole.getOrDefault(name, false));
      if (name.startsWith("cost.")) {
        costs.add(name + "=" + text);
      } else {
        Problem p = ExperimentYaml.set(t, name, text);
        if (p != null) {
          throw new UserInputException("--params: [" + name + "=" + text + "]: " + p.message());
        }
      }
    });
    t.put("seed", seed);
    Experiment e = unchanged.validateTree(file.toString(), t);
    WhatIf whatIf = CostSettings.parse(costs, e, unchanged);
    Runner runner = CostSettings.apply(unchanged, whatIf);
    Experiment run = label.equals(BASE) ? e : ExperimentYaml.variant(e, label);
    if (!perf) {
      return SimulatedFigures.of(runner.run(run, label), null);
    }
    RunOutputs o = new RunOutputs(runner.plugins(), run.arch(), label, 0);
    ExperimentResult r = runner.run(run, label, RunChecks.defaults(), o);
    return SimulatedFigures.of(r, o.text(o.name("perf-report", "txt")));
  }

  /** At most 16 MiB of the target file. */
  static byte[] readTarget(Path path) {
    if (Files.isDirectory(path)) {
      throw new UserInputException("cannot read target [" + path + "]: it is a directory");
    }
    byte[] content;
    try (InputStream in = Files.newInputStream(path)) {
      content = in.readNBytes((16 << 20) + 1);
    } catch (NoSuchFileException x) {
      throw new UserInputException("cannot read target [" + path + "]: no such file");
    } catch (AccessDeniedException x) {
      throw new UserInputException("cannot read target [" + path + "]: permission denied");
    } catch (IOException x) {
      throw new UserInputException("cannot read target [" + path + "]: " + x.getMessage());
    }
    if (content.length > 16 << 20) {
      throw new UserInputException("cannot read target [" + path + "]: more than 16 MiB");
    }
    return content;
  }

  private static void write(Path target, String content) {
    try {
      AtomicFiles.writeBytes(target, content.getBytes(StandardCharsets.UTF_8));
    } catch (IOException x) {
      throw new UncheckedIOException("cannot write [" + target + "]", x);
    }
  }
}

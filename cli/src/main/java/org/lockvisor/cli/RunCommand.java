package org.lockvisor.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.lockvisor.experiment.check.RunChecks;
import org.lockvisor.experiment.io.AtomicFiles;
import org.lockvisor.experiment.model.Durations;
import org.lockvisor.experiment.model.Experiment;
import org.lockvisor.experiment.model.ExperimentYaml;
import org.lockvisor.experiment.runner.ExperimentResult;
import org.lockvisor.experiment.runner.ExperimentRunner;
import org.lockvisor.experiment.runner.ResultJson;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code lockvisor run FILE}: validates and runs an experiment (the base, then each variant) and
 * prints workload figures and, for runs that created locks, the {@code /proc/lock_stat} table.
 * {@code --out DIR} writes {@code result.json} (atomically) and {@code lock_stat.txt}.
 */
@Command(name = "run", mixinStandardHelpOptions = true,
    description = "Runs an experiment file (base and variants) and prints its results.")
public final class RunCommand implements Callable<Integer> {

  /** Runs that finish sooner than this print no progress. */
  static final double PROGRESS_AFTER_S = 2.0;

  @ParentCommand
  private Lockvisor lockvisor;

  @Spec
  private CommandSpec spec;

  @Parameters(index = "0", paramLabel = "FILE", description = "Experiment YAML file.")
  private Path file;

  @Option(names = "--seed", paramLabel = "N", description = "Root seed (overrides the file's seed).")
  private Long seed;

  @Option(names = "--set", paramLabel = "PATH=VALUE",
      description = "Override a value, e.g. vms[0].locks.spinlock=ticket or duration=50ms (repeatable).")
  private List<String> sets = new ArrayList<>();

  @Option(names = "--variant", paramLabel = "NAME",
      description = "Run only this variant ('base' for the experiment without overrides).")
  private String variant;

  @Option(names = "--out", paramLabel = "DIR", description = "Write result.json and lock_stat.txt into DIR.")
  private Path out;

  @Option(names = "--format", paramLabel = "text|json", defaultValue = "text",
      converter = OutputFormat.Converter.class, description = "Output format (default: ${DEFAULT-VALUE}).")
  private OutputFormat format;

  @Mixin
  private CheckOptions checks = new CheckOptions();

  @Override
  public Integer call() {
    ExperimentRunner runner = lockvisor.injector().getInstance(ExperimentRunner.class);
    Experiment e = runner.validateTree(file.toString(), ExperimentFiles.load(file, sets, seed));
    List<String> labels = new ArrayList<>();
    if (variant == null || variant.equals("base")) {
      labels.add("base");
    }
    if (variant == null) {
      labels.addAll(e.variants().keySet());
    } else if (!variant.equals("base")) {
      ExperimentYaml.variant(e, variant); // unknown variant: exit 2 before running anything
      labels.add(variant);
    }
    List<ExperimentResult> results = new ArrayList<>();
    long start = System.nanoTime();
    PrintWriter stderr = spec.commandLine().getErr();
    for (String label : labels) {
      results.add(runner.run(label.equals("base") ? e : ExperimentYaml.variant(e, label), label,
          checks.toRunChecks(RunChecks.defaults().invariants(), checks.perturbSeed(), checks.replay(file, sets, seed, label, checks.perturbSeed()))));
      double elapsed = (System.nanoTime() - start) / 1e9;
      if (elapsed > PROGRESS_AFTER_S && results.size() < labels.size()) {
        // Only runs that take a while report progress, on stderr.
        stderr.printf(Locale.ROOT, "run: %s done (%d/%d), %.1f s elapsed, ETA %.1f s%n", label, results.size(),
            labels.size(), elapsed, elapsed / results.size() * (labels.size() - results.size()));
        stderr.flush();
      }
    }
    ObjectNode document = ResultJson.document(file.toString(), results);
    PrintWriter stdout = spec.commandLine().getOut();
    if (format == OutputFormat.JSON) {
      stdout.println(ResultJson.write(document));
    } else {
      results.forEach(r -> printText(stdout, r));
    }
    stdout.flush();
    if (out != null) {
      write(out.resolve("result.json"), ResultJson.write(document) + System.lineSeparator());
      for (ExperimentResult r : results) {
        String name = r.variant().equals("base") ? "lock_stat.txt" : "lock_stat-" + r.variant() + ".txt";
        write(out.resolve(name), r.lockStat().text());
      }
    }
    return Lockvisor.EXIT_OK;
  }

  static void printText(PrintWriter out, ExperimentResult r) {
    out.printf(Locale.ROOT, "== %s [%s]: arch %s, seed %d, %s simulated after %s warm-up, %d events,"
            + " fingerprint %s, %.2f s wall%n", r.experiment(), r.variant(), r.arch(), r.seed(),
        Durations.format(r.simulatedNs()), Durations.format(r.warmupNs()), r.events(), r.fingerprint(),
        r.wallNs() / 1e9);
    for (ExperimentResult.WorkloadResult w : r.workloads()) {
      out.println("-- workload " + w.vm() + "/" + w.name() + " (" + w.type() + ")");
      printFigures(out, w.figures());
      Object stats = w.nativeReport() == null ? null : w.nativeReport().get("stats");
      if (stats instanceof List<?> lines) {
        lines.forEach(line -> out.println("   " + line));
      }
    }
    for (ExperimentResult.DeviceResult d : r.devices()) {
      out.println("-- device " + d.vm() + "/" + d.name() + " (" + d.type() + ")");
      printFigures(out, d.stats());
    }
    if (!r.lockStat().classes().isEmpty()) {
      out.println("-- /proc/lock_stat");
      r.lockStat().lines().forEach(out::println);
    }
    out.println();
  }

  private static void printFigures(PrintWriter out, Map<String, Number> figures) {
    int width = figures.keySet().stream().mapToInt(String::length).max().orElse(0);
    figures.forEach((k, v) -> out.printf(Locale.ROOT, "   %-" + width + "s  %s%n", k,
        v instanceof Double d ? String.format(Locale.ROOT, "%.2f", d) : v.toString()));
  }

  private static void write(Path target, String content) {
    try {
      AtomicFiles.writeString(target, content);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write [" + target + "]", e);
    }
  }
}

package org.lockvisor.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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
import org.lockvisor.workloads.spi.Workload;
import org.lockvisor.experiment.runner.Runner;
import org.lockvisor.experiment.runner.Provenance;
import org.lockvisor.experiment.runner.ResultJson;
import org.lockvisor.experiment.runner.RunObserver;
import org.lockvisor.reports.LockStatReport;
import org.lockvisor.reports.RunFiles;
import org.lockvisor.reports.RunOutputs;
import org.lockvisor.reports.RunPage;
import org.lockvisor.reproductions.api.WhatIf;
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
 * {@code --out DIR} writes {@code result.json} (atomically, with the provenance manifest) and, per
 * run, the files of {@link RunOutputs} ({@code perf-report.txt}, folded stacks, {@code
 * kvm-stat.txt}, {@code lock_stat.txt}, {@code lock-contention.txt}, workload-native JSON, and
 * {@code trace.json} with {@code --trace}), the differential folded pairs of each variant against
 * the base, and {@code report.html}; see docs/outputs.md.
 */
@Command(name = "run", mixinStandardHelpOptions = true,
    description = "Runs an experiment file (base and variants) and prints its results.")
public final class RunCommand implements Callable<Integer> {

  @ParentCommand
  private Lockvisor lockvisor;

  @Spec
  private CommandSpec spec;

  @Parameters(index = "0", paramLabel = "FILE", description = "Experiment YAML file.")
  private Path file;

  @Option(names = "--seed", paramLabel = "N", description = "Root seed (overrides the file's seed).")
  private Long seed;

  @Option(names = "--set", paramLabel = "PATH=VALUE",
      description = "Override a value, e.g. vms[0].locks.spinlock=ticket or duration=50ms, or an arch profile's"
          + " cost, cost.<profile>.<COST_KEY>=<number> (a what-if, labelled; keys: plugins --options <profile>)"
          + " (repeatable).")
  private List<String> sets = new ArrayList<>();

  @Option(names = "--variant", paramLabel = "NAME",
      description = "Run only this variant ('base' for the experiment without overrides).")
  private String variant;

  @Option(names = "--out", paramLabel = "DIR",
      description = "Write result.json, perf-report.txt, *.folded, kvm-stat.txt, lock_stat.txt, lock-contention.txt,"
          + " workload JSON and report.html into DIR (see docs/outputs.md).")
  private Path out;

  @Option(names = "--force",
      description = "Write into an existing non-empty --out directory that is not a lockvisor output.")
  private boolean force;

  @Mixin
  private TraceOptions traceOptions = new TraceOptions();

  @Option(names = "--format", paramLabel = "text|json", defaultValue = "text",
      converter = OutputFormat.Converter.class, description = "Output format (default: ${DEFAULT-VALUE}).")
  private OutputFormat format;

  @Mixin
  private CheckOptions checks = new CheckOptions();

  @Override
  public Integer call() {
    int traceEvents = traceOptions.eventsFor(out);
    Runner unchanged = lockvisor.injector().getInstance(Runner.class);
    checks.limit(unchanged, spec.commandLine().getErr()); // before the file is validated: validation builds every machine
    List<String> paths = CostSettings.paths(sets);
    ObjectNode tree = ExperimentFiles.load(file, paths, seed);
    Experiment e = unchanged.validateTree(file.toString(), tree);
    CheckOptions.validated(unchanged);
    WhatIf whatIf = CostSettings.parse(CostSettings.costs(sets), e, unchanged);
    Runner runner = CostSettings.apply(unchanged, whatIf);
    if (runner != unchanged) {
      checks.limitRuns(runner, spec.commandLine().getErr()); // a what-if's runner builds the machines
    }
    List<String> labels = new ArrayList<>();
    if (variant == null || variant.equals("base")) {
      labels.add("base");
    }
    if (variant == null) {
      labels.addAll(e.variants().keySet());
    } else if (!variant.equals("base")) {
      ExperimentYaml.variant(e, variant); // unknown variant: exit 2 before running or writing anything
      labels.add(variant);
    }
    OutputDirectory.prepare("--out", out, force, spec.commandLine().getErr());
    List<ExperimentResult> results = new ArrayList<>();
    List<RunOutputs> outputs = new ArrayList<>();
    Progress progress = new Progress(spec.commandLine().getErr());
    for (String label : labels) {
      Experiment run = label.equals("base") ? e : ExperimentYaml.variant(e, label);
      RunOutputs o = new RunOutputs(runner.plugins(), run.arch(), label, traceEvents);
      RunChecks runChecks = checks.toRunChecks(RunChecks.defaults().invariants(), checks.perturbSeed(),
          checks.replay(ReplayLauncher.of(lockvisor, runner.plugins()), file, sets, seed, label,
              checks.perturbSeed()));
      results.add(runner.run(run, label, runChecks, out == null ? RunObserver.NONE : o));
      outputs.add(o);
      if (out != null && o.files().containsKey(RunOutputs.fileName("trace", "json", label))) {
        // The largest file: written now rather than held until every variant has run.
        String name = RunOutputs.fileName("trace", "json", label);
        write(out.resolve(name), o.files().get(name));
        o.releaseTrace();
      }
      if (results.size() < labels.size()) {
        // Only runs that take a while report progress, on stderr.
        progress.step("run: " + label, results.size(), labels.size());
      }
    }
    progress.finish();
    BuildInfo build = new BuildInfo();
    Provenance provenance = Provenance.of(build.version(), build.commit(), CostSettings.provenanceTree(tree, whatIf), e,
        runner.plugins());
    ObjectNode document = ResultJson.document(file.toString(), results, provenance);
    if (!whatIf.isEmpty()) {
      document.set("whatIf", ResultJson.MAPPER.valueToTree(whatIf.json()));
    }
    PrintWriter stdout = spec.commandLine().getOut();
    if (format == OutputFormat.JSON) {
      stdout.println(ResultJson.write(document));
    } else {
      if (!whatIf.isEmpty()) {
        stdout.println(CostSettings.label(whatIf));
      }
      results.forEach(r -> printText(stdout, r));
    }
    stdout.flush();
    warnIdleTasks(results, spec.commandLine().getErr());
    if (out != null) {
      writeOutputs(e, provenance, document, outputs);
    }
    return Lockvisor.EXIT_OK;
  }

  /**
   * One warning per workload with tasks that did no work in the measurement window ({@link
   * Workload#IDLE_TASKS}): its figures are the busy tasks' alone, which a reader of IOPS or
   * throughput would not guess.
   */
  static void warnIdleTasks(List<ExperimentResult> results, PrintWriter err) {
    for (ExperimentResult r : results) {
      for (ExperimentResult.WorkloadResult w : r.workloads()) {
        Number idle = w.figures().get(Workload.IDLE_TASKS);
        if (idle != null && idle.longValue() > 0) {
          err.println("lockvisor: warning: [" + r.variant() + "] workload " + w.vm() + "/" + w.name() + ": "
              + idle.longValue() + (idle.longValue() == 1 ? " task" : " tasks") + " did no work in the "
              + Durations.format(r.simulatedNs()) + " measurement window, so its figures are the other tasks'"
              + " alone (a vCPU that never ran? see kvm-stat.txt and the timeline; a longer duration may help)");
        }
      }
    }
    err.flush();
  }

  /** result.json, every run's files and the differential pairs ({@link RunFiles}), then report.html. */
  private void writeOutputs(Experiment e, Provenance provenance, ObjectNode document, List<RunOutputs> outputs) {
    List<String> written = RunFiles.write(out, document, outputs);
    Map<String, String> variants = new LinkedHashMap<>();
    e.variants().forEach((name, overrides) -> {
      List<String> set = new ArrayList<>();
      overrides.forEach((path, value) -> set.add(path + "=" + value));
      variants.put(name, String.join(", ", set));
    });
    write(out.resolve("report.html"), RunPage.render(e.name(), file.toString(), provenance, outputs, written,
        variants));
  }

  static void printText(PrintWriter out, ExperimentResult r) {
    out.printf(Locale.ROOT, "== %s [%s]: arch %s, seed %d, %s simulated after %s warm-up, %d events,"
            + " fingerprint %s, %.2f s wall%n", r.experiment(), r.variant(), r.arch(), r.seed(),
        Durations.format(r.simulatedNs()), Durations.format(r.warmupNs()), r.events(), r.fingerprint(),
        r.wallNs() / 1e9);
    if (r.finishedNs() >= 0) {
      out.println("   until done: the last workload finished at " + Durations.format(r.finishedNs())
          + " of simulated time (measurement ended at the check at " + Durations.format(r.warmupNs() + r.simulatedNs())
          + ")");
    }
    for (ExperimentResult.WorkloadResult w : r.workloads()) {
      out.println("-- workload " + w.vm() + "/" + w.name() + " (" + w.type() + ")"
          + (w.finishedNs() >= 0 ? ", finished at " + Durations.format(w.finishedNs()) : ""));
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
      LockStatReport.of(r.lockStat()).lines().forEach(out::println);
    }
    out.println();
  }

  private static void printFigures(PrintWriter out, Map<String, Number> figures) {
    int width = figures.keySet().stream().mapToInt(String::length).max().orElse(0);
    figures.forEach((k, v) -> out.printf(Locale.ROOT, "   %-" + width + "s  %s%n", k,
        v instanceof Double d ? String.format(Locale.ROOT, "%.2f", d) : v.toString()));
  }

  private static void write(Path target, String content) {
    write(target, content.getBytes(StandardCharsets.UTF_8));
  }

  private static void write(Path target, byte[] content) {
    try {
      AtomicFiles.writeBytes(target, content);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write [" + target + "]", e);
    }
  }
}

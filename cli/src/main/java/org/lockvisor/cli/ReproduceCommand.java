package org.lockvisor.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.google.common.collect.ImmutableList;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.lockvisor.experiment.Reproduction;
import org.lockvisor.experiment.ReproductionOptions;
import org.lockvisor.experiment.ReproductionResult;
import org.lockvisor.experiment.ReproductionRuns;
import org.lockvisor.experiment.Reproductions;
import org.lockvisor.experiment.SimulationFailedException;
import org.lockvisor.experiment.UserInputException;
import org.lockvisor.experiment.WhatIf;
import org.lockvisor.experiment.calibrate.CalibrationReport;
import org.lockvisor.experiment.calibrate.ParameterRange;
import org.lockvisor.experiment.calibrate.ReproductionCalibration;
import org.lockvisor.experiment.report.HtmlReport;
import org.lockvisor.experiment.io.AtomicFiles;
import org.lockvisor.experiment.report.ReproductionPage;
import org.lockvisor.experiment.report.RunCapture;
import org.lockvisor.experiment.report.RunDirectories;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code lockvisor reproduce <name>|all}: runs registered reproductions and judges them. Exit 0
 * when every one reproduced; 1 when any simulation failed or did not reproduce; 2 for an unknown
 * name. Progress of the internal runs goes to stderr ({@link Progress}); with {@code --out}, each
 * internal run's files are written by {@link RunDirectories}. {@code --set KEY=VALUE} runs a
 * what-if ({@link WhatIf}), checked before anything runs and labelled in every output.
 */
@Command(name = "reproduce", mixinStandardHelpOptions = true,
    description = "Runs one registered reproduction, or all of them, and prints the verdicts.")
public final class ReproduceCommand implements java.util.concurrent.Callable<Integer> {

  static final String ALL = "all";

  @ParentCommand
  private Lockvisor lockvisor;

  @Spec
  private CommandSpec spec;

  @Parameters(index = "0", paramLabel = "<name>|all", description = "A reproduction name, or 'all'.")
  private String target;

  @Option(names = "--quick", description = "Shorter runs: checks direction, with wider bands.")
  private boolean quick;

  @Option(names = "--format", paramLabel = "text|json", defaultValue = "text",
      converter = OutputFormat.Converter.class, description = "Output format (default: ${DEFAULT-VALUE}).")
  private OutputFormat format;

  @Option(names = "--out", paramLabel = "DIR",
      description = "Write <name>.json per reproduction, its own artefacts under <name>/ and each internal run's"
          + " files (result.json, perf-report.txt, *.folded, lock_stat.txt, kvm-stat.txt, ...) under"
          + " <name>/runs/<run>/, into DIR (see docs/outputs.md).")
  private Path out;

  @Option(names = "--force",
      description = "Write into an existing non-empty --out directory that is not a lockvisor output.")
  private boolean force;

  @Option(names = "--set", paramLabel = "KEY=VALUE",
      description = {"A what-if, repeatable; its output is labelled WHAT-IF and is not the reproduction.",
          "cost.<profile>.<COST_KEY>=<number> overrides one cost of an arch profile (in the key's unit; keys and"
              + " values: lockvisor plugins --options <profile>) for every machine built on that profile, also with 'all',"
              + " e.g. --set cost.x86_64-kvm.TTWU_FULL=1500.",
          "<parameter>=<value> sets a parameter of the one named reproduction: vcpu-preempted groups=N, smt=1|2|4|8,"
              + " wake-affine=true|false, seeds=LIST (comma-separated); vhost-wakeup and virtio-blk-notify seed=N;"
              + " vhost-wakeup mtu=1500|9000, peer-queues=N, peer-irq-interval-us=N, vcpus=N,"
              + " irq-time-accounting=true|false, tun-read=3.0|noblock-guard|ring, irqfd-inject=kworker|direct;"
              + " virtio-blk-notify x86-vmm=qemu-2.0-dataplane|qemu-2.0-main-loop,"
              + " arm64-interrupt-transport=mmio-level|msi, queue-policy=POLICY, backend-service-us=N"
              + " (each reproduction's: lockvisor plugins --options <name>)."})
  private List<String> settings = new ArrayList<>();

  @Mixin
  private TraceOptions traceOptions = new TraceOptions();

  @Option(names = "--calibrate",
      description = "Fit the declared setup parameters to the published baseline column only, predict the patched"
          + " column at the fitted point and judge its bands (see docs/envelopes.md).")
  private boolean calibrate;

  @Option(names = "--params", paramLabel = "P[=LO..HI][,...]",
      description = "With --calibrate: the parameters to fit (default: the reproduction's calibration parameters),"
          + " each a declared parameter or cost.<profile>.<KEY> with a declared range, optionally narrowed, e.g."
          + " backend-service-us=10..50.")
  private String params;

  @Option(names = "--seeds", paramLabel = "K", defaultValue = "2",
      description = "With --calibrate: seeds per point (default: ${DEFAULT-VALUE}; 1 for a reproduction without a"
          + " seed parameter).")
  private int seeds;

  @Option(names = "--jobs", paramLabel = "J", defaultValue = "1",
      description = "With --calibrate: reproduction runs at once (default: ${DEFAULT-VALUE}).")
  private int jobs;

  @Option(names = "--max-evaluations", paramLabel = "N", defaultValue = "40",
      description = "With --calibrate: points the optimiser may try at most (default: ${DEFAULT-VALUE}).")
  private int maxEvaluations;

  @Override
  public Integer call() {
    int traceEvents = traceOptions.eventsFor(out);
    Reproductions registry = lockvisor.injector().getInstance(Reproductions.class);
    ImmutableList<Reproduction> chosen = ALL.equals(target)
        ? registry.all().values().asList()
        : ImmutableList.of(registry.choose(target));
    if (calibrate) {
      return calibrate(chosen);
    }
    if (params != null) {
      throw new UserInputException("--params is an option of --calibrate");
    }
    WhatIf whatIf = WhatIf.parse(settings, chosen, ALL.equals(target));
    // after every check of the input: no directory for a bad command
    OutputDirectory.prepare("--out", out, force, spec.commandLine().getErr());
    PrintWriter stdout = spec.commandLine().getOut();
    PrintWriter stderr = spec.commandLine().getErr();
    if (chosen.isEmpty()) {
      stdout.println(format == OutputFormat.JSON ? "[]" : "no reproductions are registered");
      stdout.flush();
      return Lockvisor.EXIT_OK;
    }

    ArrayNode json = Json.MAPPER.createArrayNode();
    boolean allReproduced = true;
    Progress progress = new Progress(stderr);
    BuildInfo build = new BuildInfo();
    for (Reproduction reproduction : chosen) {
      String name = reproduction.name();
      // The part of the what-if this reproduction uses; empty: it runs as itself, unlabelled.
      WhatIf mine = whatIf.restrictTo(reproduction);
      ReproductionResult own;
      Optional<Path> outDir = Optional.ofNullable(out).map(d -> d.resolve(name));
      ReportedRuns runs = new ReportedRuns(name, progress,
          outDir.map(d -> new RunDirectories(d, build.version(), build.commit(), traceEvents, mine))
              .orElse(null));
      try {
        own = reproduction.run(new ReproductionOptions(quick, outDir, runs, mine));
      } catch (SimulationFailedException e) {
        progress.finish();
        // Keep going: one broken reproduction must not hide the verdicts of the others.
        allReproduced = false;
        String error = (mine.isEmpty() ? "" : "what-if " + mine.describe() + " of ") + "reproduction [" + name
            + "] failed: " + Lockvisor.oneLine(e.getMessage());
        stderr.println("lockvisor: " + error);
        json.add(Json.reproductionFailure(name, error, mine));
        continue;
      }
      progress.finish();
      ReproductionResult result = mine.labelled(own);
      if (!result.reproduced()) {
        allReproduced = false;
        stderr.println("lockvisor: reproduction [" + name + "] did not reproduce: " + result.headline());
      }
      json.add(Json.reproduction(result, mine));
      if (format == OutputFormat.TEXT) {
        printText(stdout, reproduction, own, mine);
      }
      if (out != null) {
        write(out.resolve(name + ".json"), Json.write(Json.reproduction(result, mine)));
        Path dir = out.resolve(name);
        String summary = mine.isEmpty() ? reproduction.summary()
            : "what-if: " + mine.describe() + " (not the reproduction). " + reproduction.summary();
        write(dir.resolve(ReproductionPage.FILE_NAME), ReproductionPage.render(result, summary, dir, runs.files.pictures()));
      }
    }
    if (format == OutputFormat.JSON) {
      // One named reproduction prints its object; "all" prints the array of them.
      stdout.println(Json.write(ALL.equals(target) ? json : json.get(0)));
    }
    stdout.flush();
    stderr.flush();
    return allReproduced ? Lockvisor.EXIT_OK : Lockvisor.EXIT_FAILED;
  }

  /**
   * A reproduction's internal runs: each one advances the progress on stderr and, with {@code
   * --out}, is written under {@code <name>/runs/<label>/}.
   */
  private static final class ReportedRuns implements ReproductionRuns {
    private final String name;
    private final Progress progress;
    private final RunDirectories files;
    private int planned;
    private int done;

    ReportedRuns(String name, Progress progress, RunDirectories files) {
      this.name = name;
      this.progress = progress;
      this.files = files;
    }

    @Override
    public boolean capturing() {
      return files != null;
    }

    @Override
    public int traceEvents() {
      return files == null ? 0 : files.traceEvents();
    }

    @Override
    public synchronized void planned(int runs) {
      planned = runs;
    }

    @Override
    public synchronized void done(String label, RunCapture capture) {
      done++;
      if (files != null) {
        files.done(label, capture);
      }
      progress.step("reproduce " + name + ": run " + label, done, planned > 0 ? Math.max(planned, done) : 0);
    }
  }

  /**
   * One reproduction's section; a what-if's starts with {@code what-if: <settings>} and its verdict
   * line with {@link WhatIf#LABEL}.
   */
  private static void printText(PrintWriter stdout, Reproduction reproduction, ReproductionResult result,
      WhatIf whatIf) {
    if (!whatIf.isEmpty()) {
      stdout.println("what-if: " + whatIf.describe() + " (not the reproduction: every verdict below is the what-if's)");
    }
    stdout.println("== " + result.name() + ": " + reproduction.summary());
    result.report().forEach(stdout::println);
    stdout.println((whatIf.isEmpty() ? "" : WhatIf.LABEL) + (result.reproduced() ? "REPRODUCED" : "NOT REPRODUCED")
        + ": " + result.headline());
    stdout.println();
  }

  /**
   * {@code --calibrate}: each chosen reproduction fitted to its published baseline column ({@link
   * ReproductionCalibration}), every input checked before the first run. Exit 0 when every held-out
   * band is met by its prediction, 1 otherwise.
   */
  private int calibrate(List<Reproduction> chosen) {
    if (!settings.isEmpty()) {
      throw new UserInputException("--set and --calibrate do not go together: a calibration moves the parameters"
          + " itself (name them with --params)");
    }
    if (params != null && ALL.equals(target)) {
      throw new UserInputException("--params names the parameters of one reproduction, not of [all]");
    }
    if (seeds < 1 || seeds > 100) {
      throw new UserInputException("--seeds must be in [1, 100]: [" + seeds + "]");
    }
    if (jobs < 1 || jobs > 256) {
      throw new UserInputException("--jobs must be in [1, 256]: [" + jobs + "]");
    }
    if (maxEvaluations < 10 || maxEvaluations > 10_000) {
      throw new UserInputException("--max-evaluations must be in [10, 10000]: [" + maxEvaluations + "]");
    }
    List<ParameterRange> ranges = params == null ? List.of() : ParameterRange.parseList("--params", params, true);
    List<ReproductionCalibration> calibrations = new ArrayList<>();
    for (Reproduction r : chosen) {
      calibrations.add(new ReproductionCalibration(r, ranges, quick, seeds, jobs, maxEvaluations));
    }
    OutputDirectory.prepare("--out", out, force, spec.commandLine().getErr());
    PrintWriter stdout = spec.commandLine().getOut();
    PrintWriter stderr = spec.commandLine().getErr();
    Progress progress = new Progress(stderr);
    ArrayNode json = Json.MAPPER.createArrayNode();
    boolean allMet = true;
    for (int i = 0; i < chosen.size(); i++) {
      Reproduction r = chosen.get(i);
      ReportedRuns runs = new ReportedRuns(r.name() + " --calibrate", progress, null);
      CalibrationReport report;
      try {
        report = calibrations.get(i).run(runs);
      } catch (SimulationFailedException e) {
        progress.finish();
        allMet = false;
        String error = "calibration of reproduction [" + r.name() + "] failed: " + Lockvisor.oneLine(e.getMessage());
        stderr.println("lockvisor: " + error);
        json.add(Json.MAPPER.createObjectNode().put("name", r.name()).put("error", error));
        continue;
      }
      progress.finish();
      if (!report.allMet()) {
        allMet = false;
        stderr.println("lockvisor: reproduction [" + r.name() + "] calibrated on its baseline: a predicted figure"
            + " misses its band");
      }
      com.fasterxml.jackson.databind.node.ObjectNode node = Json.MAPPER.valueToTree(report.json());
      node.put("name", r.name());
      json.add(node);
      if (format == OutputFormat.TEXT) {
        stdout.println("== " + r.name() + " --calibrate: " + r.summary());
        report.text().forEach(stdout::println);
        stdout.println((report.allMet() ? "PREDICTED" : "NOT PREDICTED") + ": the held-out bands "
            + (report.allMet() ? "are all met" : "are not all met") + " at the point fitted to the baseline column");
        stdout.println();
      }
      if (out != null) {
        Path dir = out.resolve(r.name());
        write(dir.resolve(CalibrationReport.JSON_FILE), Json.write(node));
        write(dir.resolve(CalibrationReport.TEXT_FILE), String.join(System.lineSeparator(), report.text()));
        write(dir.resolve(ReproductionPage.FILE_NAME),
            report.html(new HtmlReport("lockvisor reproduce " + r.name() + " --calibrate")).render());
      }
    }
    if (format == OutputFormat.JSON) {
      stdout.println(Json.write(ALL.equals(target) ? json : json.get(0)));
    }
    stdout.flush();
    stderr.flush();
    return allMet ? Lockvisor.EXIT_OK : Lockvisor.EXIT_FAILED;
  }

  private static void write(Path file, String content) {
    try {
      AtomicFiles.writeString(file, content + System.lineSeparator());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write [" + file + "]", e);
    }
  }
}

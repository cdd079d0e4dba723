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
import org.lockvisor.experiment.SimulationFailedException;
import org.lockvisor.experiment.UserInputException;
import org.lockvisor.experiment.io.AtomicFiles;
import org.lockvisor.experiment.runner.ExperimentRunner;
import org.lockvisor.reports.HtmlReport;
import org.lockvisor.reproductions.api.ExperimentRun;
import org.lockvisor.reproductions.api.Reproduction;
import org.lockvisor.reproductions.api.ReproductionOptions;
import org.lockvisor.reproductions.api.ReproductionResult;
import org.lockvisor.reproductions.api.ReproductionRuns;
import org.lockvisor.reproductions.api.Reproductions;
import org.lockvisor.reproductions.api.WhatIf;
import org.lockvisor.reproductions.report.ReproductionPage;
import org.lockvisor.reproductions.report.RunDirectories;
import org.lockvisor.reproductions.study.ReproductionCalibration;
import org.lockvisor.reproductions.study.ReproductionEnvelope;
import org.lockvisor.studies.calibrate.CalibrationReport;
import org.lockvisor.studies.calibrate.ParameterRange;
import org.lockvisor.studies.envelope.EnvelopeRunner;
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

  @Option(names = "--export-experiments", paramLabel = "DIR",
      description = "Run nothing; write the reproduction's shipped experiment files, with the --set paths and"
          + " parameters applied (with --quick: derived paths at the --quick defaults), into DIR, for"
          + " 'lockvisor run DIR/<file>.yaml'.")
  private Path exportDir;

  @Option(names = "--set", paramLabel = "KEY=VALUE",
      description = {"A what-if, repeatable; its output is labelled WHAT-IF and is not the reproduction.",
          "cost.<profile>.<COST_KEY>=<number> overrides one cost of an arch profile (in the key's unit; keys and"
              + " values: lockvisor plugins --options <profile>) for every machine built on that profile, also with 'all',"
              + " e.g. --set cost.x86_64-kvm.TTWU_FULL=1500.",
          "<parameter>=<value> sets a parameter of the one named reproduction: vcpu-preempted groups=N, smt=1|2|4|8,"
              + " wake-affine=true|false, hz=100|250|1000, vps=N, pool-cpus=N, seeds=LIST (comma-separated);"
              + " vhost-wakeup and virtio-blk-notify seed=N;"
              + " vhost-wakeup mtu=1500|9000, peer-queues=N, peer-irq-interval-us=N, vcpus=N,"
              + " irq-time-accounting=true|false, tun-read=3.0|noblock-guard|ring, irqfd-inject=kworker|direct,"
              + " direction=guest-send|guest-receive (default: both, guest-send judged);"
              + " virtio-blk-notify x86-vmm=qemu-2.0-dataplane|qemu-2.0-main-loop,"
              + " arm64-interrupt-transport=mmio-level|msi, queue-policy=POLICY, backend-service-us=N"
              + " (each reproduction's: lockvisor plugins --options <name>).",
          "<path>=<value> sets an experiment path of the reproduction's shipped files, as run --set does, e.g."
              + " vms[0].vcpus=2 (the files: --export-experiments DIR)."})
  private List<String> settings = new ArrayList<>();

  @Mixin
  private TraceOptions traceOptions = new TraceOptions();

  @Option(names = "--calibrate",
      description = "Fit the declared setup parameters to the published baseline column only, predict the patched"
          + " column at the fitted point and judge its bands (see docs/envelopes.md).")
  private boolean calibrate;

  @Option(names = "--max-evaluations", paramLabel = "N",
      description = "With --calibrate: points the optimiser may try at most (default 40).")
  private Integer maxEvaluations;

  @Option(names = "--envelope", description = {"Run a setup envelope instead of the reproduction: sample its declared"
      + " parameters (and the cost estimates it names) over their plausible ranges by Latin hypercube, run every"
      + " variant at every sample with the same seeds, and report the published figures' place in the simulated"
      + " spread, the samples that meet every band, and each parameter's PRCC on the effect (docs/envelopes.md)."})
  private boolean envelope;

  @Option(names = "--samples", paramLabel = "N", description = "With --envelope: Latin hypercube samples (default 32).")
  private Integer samples;

  @Option(names = "--seeds", paramLabel = "K", description = "With --envelope: seeds per sample, the same for every"
      + " sample (default 2). With --calibrate: seeds per point (default 2; 1 for a reproduction without a seed"
      + " parameter).")
  private Integer seeds;

  @Option(names = "--seed", paramLabel = "N", description = "With --envelope: root seed of the hypercube and of the"
      + " runs' seeds N, N+1, ... (default 1).")
  private Long seed;

  @Option(names = "--jobs", paramLabel = "J", description = "With --envelope: parallel runs (default: available"
      + " processors). With --calibrate: reproduction runs at once (default 1).")
  private Integer jobs;

  @Option(names = {"--param", "--params"}, split = ",", paramLabel = "SPEC", description = {"With --envelope: a"
      + " parameter to sample (repeatable, or comma-separated; default: every declared one and the reproduction's cost"
      + " estimates): NAME (its declared range), NAME=LOW..HIGH[:log] or NAME=A|B|C inside the declared range; NAME"
      + " is a parameter or cost.<profile>.<KEY> of an [E] estimate.",
      "With --calibrate: a parameter to fit (default: the reproduction's calibration parameters), NAME or"
          + " NAME=LOW..HIGH[:log] inside its declared numeric range, e.g. --params backend-service-us=10..50."})
  private List<String> params = new ArrayList<>();

  @Option(names = "--effect", paramLabel = "KEY", description = "With --envelope: the band key the PRCC and the"
      + " scatter plots use (default: the first ratio-like band).")
  private String effect;

  @Option(names = "--shard", paramLabel = "i/N", description = "With --envelope and --out: run only the samples"
      + " whose index is i modulo N; merge the shard directories with 'lockvisor merge'.")
  private String shard;

  @Option(names = "--resume", description = "With --envelope and --out: skip the runs already written in DIR by the"
      + " same envelope; a DIR holding another plan (other --samples, --seeds, --param, --set) is refused, naming the"
      + " difference, unless --force (which replaces its runs).")
  private boolean resume;

  @Mixin
  private EmitOptions emitOptions = new EmitOptions();

  @Override
  public Integer call() {
    if (calibrate && envelope) {
      throw new UserInputException("--calibrate and --envelope are two different runs; give one");
    }
    if (exportDir != null) {
      return exportExperiments();
    }
    if (calibrate) {
      if (samples != null || seed != null || effect != null || shard != null || resume
          || emitOptions.firstGiven() != null) {
        throw new UserInputException("--samples, --seed, --effect, --shard, --resume and " + (emitOptions.firstGiven()
            == null ? "--emit" : emitOptions.firstGiven()) + " are options of --envelope, not of --calibrate");
      }
      Reproductions registry = lockvisor.injector().getInstance(Reproductions.class);
      return calibrate(ALL.equals(target) ? registry.all().values().asList()
          : ImmutableList.of(registry.choose(target)));
    }
    if (maxEvaluations != null) {
      throw new UserInputException("--max-evaluations takes effect only with --calibrate");
    }
    if (!envelope && emitOptions.firstGiven() != null) {
      throw new UserInputException(emitOptions.firstGiven() + " takes effect only with --envelope (--emit, --shards,"
          + " --java, --time, --mem and --partition are options of an envelope's --emit slurm)");
    }
    if (envelope) {
      return runEnvelope();
    }
    if (samples != null || seeds != null || seed != null || jobs != null || !params.isEmpty() || effect != null
        || shard != null || resume) {
      throw new org.lockvisor.experiment.UserInputException("--samples, --seeds, --seed, --jobs, --param, --effect,"
          + " --shard and --resume take effect only with --envelope (--seeds, --jobs and --param(s) also with"
          + " --calibrate)");
    }
    int traceEvents = traceOptions.eventsFor(out);
    Reproductions registry = lockvisor.injector().getInstance(Reproductions.class);
    ImmutableList<Reproduction> chosen = ALL.equals(target)
        ? registry.all().values().asList()
        : ImmutableList.of(registry.choose(target));
    ExperimentRunner runner = lockvisor.injector().getInstance(ExperimentRunner.class);
    WhatIf whatIf = WhatIf.parse(settings, chosen, ALL.equals(target), quick, runner);
    for (Reproduction r : chosen) {
      for (String path : whatIf.paths().keySet()) {
        if (r.pointPaths().contains(path)) {
          throw new UserInputException("--set [" + path + "=" + whatIf.paths().get(path) + "]: " + r.name()
              + " sets [" + path + "] itself for each point it runs; for another value run its file"
              + " (--export-experiments DIR, then lockvisor run DIR/<file>.yaml --set " + path + "=...)");
        }
      }
    }
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
        own = reproduction.run(new ReproductionOptions(quick, outDir, runs, mine, runner));
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
   * {@code --envelope}: every check of the input (the reproduction, the parameters and their ranges,
   * the counts, every sample's settings) before anything runs; then the runs, in parallel, and the
   * summary (text or JSON on stdout; with {@code --out}, envelope.json, plots and report.html).
   */
  private int runEnvelope() {
    if (ALL.equals(target)) {
      throw new org.lockvisor.experiment.UserInputException("--envelope runs one reproduction; name it instead of"
          + " [all]");
    }
    int n = samples == null ? 32 : samples;
    int k = seeds == null ? 2 : seeds;
    if (n < 1 || n > 100_000) {
      throw new org.lockvisor.experiment.UserInputException("--samples [" + n + "] is out of range; allowed: [1, 100000]");
    }
    if (k < 1 || k > 1000) {
      throw new org.lockvisor.experiment.UserInputException("--seeds [" + k + "] is out of range; allowed: [1, 1000]");
    }
    int threads = jobs == null ? Runtime.getRuntime().availableProcessors() : jobs;
    if (threads < 1 || threads > 1024) {
      throw new org.lockvisor.experiment.UserInputException("--jobs [" + threads + "] is out of range; allowed: [1, 1024]");
    }
    int[] sh = EnvelopeCommands.shard(shard);
    if ((shard != null || resume) && out == null) {
      throw new org.lockvisor.experiment.UserInputException((shard != null ? "--shard" : "--resume")
          + " needs --out DIR (the shards' runs are merged from their directories)");
    }
    if (traceOptions.requested()) {
      throw new org.lockvisor.experiment.UserInputException("--trace takes no effect with --envelope");
    }
    Reproductions registry = lockvisor.injector().getInstance(Reproductions.class);
    Reproduction reproduction = registry.choose(target);
    if (effect != null && !reproduction.bandKeys().contains(effect)) {
      throw new UserInputException("--effect [" + effect + "] is not a band " + reproduction.name() + " judges; "
          + (reproduction.bandKeys().isEmpty() ? "it declares none (leave --effect out for the default)"
              : "known: " + reproduction.bandKeys()));
    }
    ReproductionEnvelope subject = new ReproductionEnvelope(reproduction, EnvelopeCommands.profiles());
    ImmutableList<org.lockvisor.studies.envelope.Dimension> dims = subject.dimensions(params);
    if (subject.seedParameter().isEmpty() && k > 1) {
      throw new org.lockvisor.experiment.UserInputException(reproduction.name() + " takes no seed: give --seeds 1");
    }
    long root = seed == null ? 1 : seed;
    ImmutableList.Builder<Long> seedList = ImmutableList.builder();
    for (int j = 0; j < k; j++) {
      seedList.add(root + j);
    }
    EnvelopeRunner.Plan plan = new EnvelopeRunner.Plan("reproduction", reproduction.name(), quick, dims, n,
        seedList.build(), root, effect, ImmutableList.copyOf(settings));
    for (String s : settings) {
      String name = s.contains("=") ? s.substring(0, s.indexOf('=')) : s;
      if (dims.stream().anyMatch(d -> d.name().equals(name)) || subject.seedParameter().map(name::equals).orElse(false)) {
        throw new org.lockvisor.experiment.UserInputException("--set [" + s + "]: [" + name + "] is set by the envelope"
            + " itself (a sampled parameter or the seed)");
      }
    }
    // every sample's settings are checked before anything runs
    for (var sample : plan.sampled()) {
      subject.whatIf(quick, settings, sample.values(), root);
    }
    if (emitOptions.emitting()) {
      return emitClusterJob(reproduction.name(), n, k, root);
    }
    emitOptions.checkNotEmitting();
    if (resume && out != null) {
      EnvelopeRunner.checkResume(plan, out, force); // another plan's runs: refused, or replaced with --force
    }
    OutputDirectory.prepare("--out", out, force, resume ? null : spec.commandLine().getErr());
    PrintWriter stdout = spec.commandLine().getOut();
    PrintWriter stderr = spec.commandLine().getErr();
    Progress progress = new Progress(stderr);
    long start = System.nanoTime();
    EnvelopeRunner.Outcome outcome = EnvelopeRunner.run(plan, subject.simulation(quick, settings), out,
        new EnvelopeRunner.Options(threads, sh[0], sh[1], resume), progress::line);
    progress.finish();
    double wall = (System.nanoTime() - start) / 1e9;
    stderr.println(String.format(java.util.Locale.ROOT, "lockvisor: envelope of %s: %d runs (%d ran, %d skipped) in"
        + " %.1f s wall with --jobs %d", reproduction.name(), outcome.runs(), outcome.ran(), outcome.skipped(), wall,
        threads));
    for (String f : outcome.failed()) {
      stderr.println("lockvisor: envelope of " + reproduction.name() + ": " + f);
    }
    if (outcome.summary().isPresent()) {
      var summary = outcome.summary().get();
      if (out != null) {
        EnvelopeReport.write(out, plan, summary, false);
      }
      if (format == OutputFormat.JSON) {
        stdout.println(Json.write(EnvelopeReport.json(plan, summary, false)));
      } else {
        EnvelopeReport.text(plan, summary).forEach(stdout::println);
        if (out != null) {
          stdout.println("wrote " + out.resolve(EnvelopeReport.JSON) + ", " + out.resolve(EnvelopeReport.HTML)
              + " and " + out.resolve("plots"));
        }
      }
    } else {
      stdout.println("envelope of " + reproduction.name() + ": shard " + sh[0] + "/" + sh[1] + " ran " + outcome.ran()
          + " of " + outcome.runs() + " runs into " + out + "; merge the shards with 'lockvisor merge'");
    }
    stdout.flush();
    stderr.flush();
    return outcome.failed().isEmpty() ? Lockvisor.EXIT_OK : Lockvisor.EXIT_FAILED;
  }

  /**
   * {@code --envelope --emit}: after every check of the envelope, writes the job description whose
   * task i runs {@code lockvisor reproduce NAME --envelope ... --shard i/N --resume --out DIR/shard-i}
   * with the same samples, seeds, parameters and settings; nothing runs here.
   */
  private int emitClusterJob(String name, int n, int k, long root) {
    ClusterJobs.Resources resources = emitOptions.resources();
    if (out == null) {
      throw new UserInputException("--emit needs --out DIR (the shared directory the tasks write their shards into)");
    }
    ClusterJobs.checkEmit(shard != null, resume);
    int tasks = emitOptions.shards == null ? n : emitOptions.shards;
    if (tasks < 1 || tasks > n) {
      throw new UserInputException("--shards [" + tasks + "] is out of range; allowed: [1, " + n + "] (the samples)");
    }
    int perTask = jobs == null ? 1 : jobs;
    List<String> extra = new ArrayList<>(List.of("--envelope", "--samples", Integer.toString(n), "--seeds",
        Integer.toString(k)));
    if (quick) {
      extra.add("--quick");
    }
    params.forEach(p -> {
      extra.add("--param");
      extra.add(p);
    });
    if (effect != null) {
      extra.add("--effect");
      extra.add(effect);
    }
    ClusterJobs.Sweep job = ClusterJobs.Sweep.reproduction(name, out, tasks, perTask, root, settings, extra);
    List<Path> plugins = lockvisor.pluginJars();
    String text = ClusterJobs.slurm(job, SweepCommand.classPath(), plugins, resources);
    EmitOptions.warnNodeLocal(out, plugins, spec.commandLine().getErr());
    OutputDirectory.prepare("--out", out, force, spec.commandLine().getErr());
    ClusterJobs.write(out, text, "envelope of " + name + ": " + n + " samples x " + k + " seeds in " + tasks
        + " shards", spec.commandLine().getOut());
    return Lockvisor.EXIT_OK;
  }

  /** {@code --export-experiments DIR} ({@link ExperimentExport}), refusing the options of a run. */
  private int exportExperiments() {
    if (calibrate || envelope || out != null || traceOptions.requested() || samples != null || seeds != null
        || seed != null || jobs != null || !params.isEmpty() || effect != null || shard != null || resume
        || emitOptions.firstGiven() != null || maxEvaluations != null) {
      throw new UserInputException("--export-experiments runs nothing: it takes only --set, --quick and --force,"
          + " not the options of a run (--out, --trace, --envelope, --calibrate and theirs)");
    }
    return ExperimentExport.write(lockvisor, target, settings, quick, exportDir, force, spec.commandLine());
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
    public synchronized void done(ExperimentRun run) {
      done++;
      if (files != null) {
        files.done(run);
      }
      progress.step("reproduce " + name + ": run " + run.label(), done, planned > 0 ? Math.max(planned, done) : 0);
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
    if (!params.isEmpty() && ALL.equals(target)) {
      throw new UserInputException("--params names the parameters of one reproduction, not of [all]");
    }
    int k = seeds == null ? 2 : seeds;
    int j = jobs == null ? 1 : jobs;
    int evaluations = maxEvaluations == null ? 40 : maxEvaluations;
    if (k < 1 || k > 100) {
      throw new UserInputException("--seeds must be in [1, 100]: [" + k + "]");
    }
    if (j < 1 || j > 256) {
      throw new UserInputException("--jobs must be in [1, 256]: [" + j + "]");
    }
    if (evaluations < 10 || evaluations > 10_000) {
      throw new UserInputException("--max-evaluations must be in [10, 10000]: [" + evaluations + "]");
    }
    List<ParameterRange> ranges = ParameterRange.parseAll("--params", params, true);
    List<ReproductionCalibration> calibrations = new ArrayList<>();
    for (Reproduction r : chosen) {
      calibrations.add(new ReproductionCalibration(r, ranges, quick, k, j, evaluations));
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

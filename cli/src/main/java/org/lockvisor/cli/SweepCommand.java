package org.lockvisor.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.lockvisor.experiment.UserInputException;
import org.lockvisor.experiment.model.Experiment;
import org.lockvisor.experiment.model.SweepPoints;
import org.lockvisor.experiment.runner.Runner;
import org.lockvisor.experiment.runner.ResultJson;
import org.lockvisor.reproductions.api.WhatIf;
import org.lockvisor.studies.envelope.EnvelopeRunner;
import org.lockvisor.studies.sweep.SweepRunner;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code lockvisor sweep FILE --out DIR [--jobs N] [--shard i/N] [--resume]}: runs every point of
 * the file's {@code sweep} with its {@code replications}, writing one file per point atomically,
 * and {@code sweep.json} (means with 95 % intervals, paired variant differences) once every point
 * is in DIR. Progress goes to stderr. With {@code --emit slurm [--shards N]} it runs nothing and
 * writes a Slurm job array instead ({@link ClusterJobs}).
 */
@Command(name = "sweep", mixinStandardHelpOptions = true,
    description = "Runs the points x replications of an experiment's sweep, in parallel, resumable, shardable.")
public final class SweepCommand implements Callable<Integer> {

  @ParentCommand
  private Lockvisor lockvisor;

  @Spec
  private CommandSpec spec;

  @Parameters(index = "0", paramLabel = "FILE", description = "Experiment YAML file with a sweep.")
  private Path file;

  @Option(names = "--out", paramLabel = "DIR", required = true, description = "Output directory.")
  private Path out;

  @Option(names = "--force",
      description = "Write into an existing non-empty --out directory that is not a lockvisor output.")
  private boolean force;

  @Option(names = "--jobs", paramLabel = "N", description = "Parallel runs (default: available processors).")
  private Integer jobs;

  @Option(names = "--shard", paramLabel = "i/N",
      description = "Run only the points whose index is i modulo N (0 <= i < N), e.g. a job array index.")
  private String shard;

  @Option(names = "--resume", description = "Skip points already written in DIR by the same sweep.")
  private boolean resume;

  @Option(names = "--seed", paramLabel = "N", description = "Root seed (overrides the file's seed).")
  private Long seed;

  @Option(names = "--set", paramLabel = "PATH=VALUE", description = "Override a value, or an arch profile's cost"
      + " (cost.<profile>.<COST_KEY>=<number>, a what-if) (repeatable).")
  private List<String> sets = new ArrayList<>();

  @Option(names = "--max-memory", paramLabel = "SIZE",
      description = "Refuse, before building, a machine whose estimated heap exceeds SIZE, e.g. 512m or 2g"
          + " (default and ceiling: three quarters of the JVM's maximum heap).")
  private String maxMemory;

  @picocli.CommandLine.Mixin
  private EmitOptions emitOptions = new EmitOptions();

  @Option(names = "--envelope", description = "Run a setup envelope: sample the --param ranges by Latin hypercube,"
      + " run the base and every variant at every sample with the same seeds, and judge the --band figures"
      + " (docs/envelopes.md).")
  private boolean envelope;

  @Option(names = "--samples", paramLabel = "N", description = "With --envelope: samples (default 32).")
  private Integer samples;

  @Option(names = "--seeds", paramLabel = "K", description = "With --envelope: seeds per sample (default: the file's"
      + " replications, at least 2).")
  private Integer seeds;

  @Option(names = "--param", paramLabel = "SPEC", description = "With --envelope: PATH=LOW..HIGH[:log], PATH=A|B|C, or"
      + " cost.<profile>.<KEY>[=LOW..HIGH[:log]] (an estimate's own range without one) (repeatable).")
  private List<String> params = new ArrayList<>();

  @Option(names = "--band", paramLabel = "KEY[=LOW..HIGH][@PUBLISHED]", description = "With --envelope: a figure to"
      + " judge, <variant>.<vm>/<workload>.<figure> (variant 'base' for the file as written) or"
      + " ratio.<variant>.<vm>/<workload>.<figure> (repeatable).")
  private List<String> bands = new ArrayList<>();

  @Option(names = "--effect", paramLabel = "KEY", description = "With --envelope: the band the PRCC and the plots"
      + " use (default: the first ratio, else the first band).")
  private String effect;

  @Override
  public Integer call() {
    if (!envelope && (samples != null || seeds != null || !params.isEmpty() || !bands.isEmpty() || effect != null)) {
      throw new UserInputException("--samples, --seeds, --param, --band and --effect take effect only with --envelope");
    }
    emitOptions.checkNotEmitting();
    if (emitOptions.emitting()) {
      return emitClusterJob();
    }
    int shardIndex = 0;
    int shardCount = 1;
    if (shard != null) {
      String[] parts = shard.split("/", -1);
      try {
        shardIndex = Integer.parseInt(parts[0].trim());
        shardCount = Integer.parseInt(parts[1].trim());
      } catch (NumberFormatException | ArrayIndexOutOfBoundsException e) {
        throw new UserInputException("--shard [" + shard + "] is not i/N, e.g. [0/4]");
      }
      if (parts.length != 2 || shardCount < 1 || shardIndex < 0 || shardIndex >= shardCount) {
        throw new UserInputException("--shard [" + shard + "] needs 0 <= i < N, e.g. [0/4]");
      }
    }
    int threads = jobs == null ? Runtime.getRuntime().availableProcessors() : jobs;
    if (threads < 1 || threads > 1024) {
      throw new UserInputException("--jobs [" + threads + "] is out of range; allowed: [1, 1024]");
    }
    Runner unchanged = lockvisor.injector().getInstance(Runner.class);
    unchanged.limitBuilding(Long.MAX_VALUE, "");
    CheckOptions.limitMemory(unchanged, maxMemory, threads); // each of the parallel runs builds its own machine
    Experiment e = unchanged.validateTree(file.toString(), ExperimentFiles.load(file, CostSettings.paths(sets), seed));
    WhatIf whatIf = CostSettings.parse(CostSettings.costs(sets), e, unchanged);
    if (!whatIf.isEmpty() && resume) {
      throw new UserInputException("--resume with cost what-ifs [" + whatIf.describe() + "]: the points in the output"
          + " directory do not record their costs, so they cannot be checked; write a fresh --out instead");
    }
    Runner runner = CostSettings.apply(unchanged, whatIf);
    if (runner != unchanged) {
      CheckOptions.limitMemory(runner, maxMemory, threads);
    }
    if (envelope) {
      return runEnvelope(runner, threads, shardIndex, shardCount);
    }
    if (e.sweep().isEmpty() && e.replications() == 1) {
      throw new UserInputException(file + ": nothing to sweep; add [sweep] parameters or [replications] (or use"
          + " 'lockvisor run')");
    }
    // after every check of the input: no directory for a bad command
    OutputDirectory.prepare("--out", out, force, resume ? null : spec.commandLine().getErr());
    PrintWriter err = spec.commandLine().getErr();
    Progress progress = new Progress(err);
    SweepRunner.Outcome outcome = new SweepRunner(runner).run(file.toString(), e, out,
        new SweepRunner.Options(threads, shardIndex, shardCount, resume), progress::line);
    progress.finish();
    if (outcome.complete()) {
      writePlots(out);
    }
    PrintWriter stdout = spec.commandLine().getOut();
    if (!whatIf.isEmpty()) {
      stdout.println(CostSettings.label(whatIf));
    }
    stdout.println("sweep [" + e.name() + "]: " + outcome.points() + " points, ran " + outcome.ran()
        + ", skipped " + outcome.skipped() + (outcome.complete() ? "; wrote " + out.resolve("sweep.json")
        : "; incomplete in " + out + " (merge the shards with 'lockvisor merge')"));
    stdout.flush();
    if (!outcome.failed().isEmpty()) {
      for (String f : outcome.failed()) {
        err.println("lockvisor: sweep [" + e.name() + "]: " + f);
      }
      err.flush();
      return Lockvisor.EXIT_FAILED;
    }
    return Lockvisor.EXIT_OK;
  }

  /** The envelope's plan and subject, every input checked (nothing runs). */
  private record EnvelopeSetup(EnvelopeRunner.Plan plan, SweepEnvelope subject) {}

  private EnvelopeSetup envelopeSetup(Runner runner) {
    SweepEnvelope subject = new SweepEnvelope(file, runner, sets, seed, params, bands);
    int n = samples == null ? 32 : samples;
    int k = seeds == null ? Math.max(2, subject.experiment().replications()) : seeds;
    if (n < 1 || n > 100_000) {
      throw new UserInputException("--samples [" + n + "] is out of range; allowed: [1, 100000]");
    }
    if (k < 1 || k > 1000) {
      throw new UserInputException("--seeds [" + k + "] is out of range; allowed: [1, 1000]");
    }
    long root = subject.experiment().seed();
    com.google.common.collect.ImmutableList.Builder<Long> seedList = com.google.common.collect.ImmutableList.builder();
    for (int j = 0; j < k; j++) {
      seedList.add(root + j);
    }
    // the absolute path: an emitted task names the file so, and its shards must merge with a local run
    EnvelopeRunner.Plan plan = new EnvelopeRunner.Plan("sweep", file.toAbsolutePath().normalize().toString(), false,
        subject.dimensions(), n,
        seedList.build(), root, effect, com.google.common.collect.ImmutableList.copyOf(sets));
    if (effect != null && bands.stream().noneMatch(b -> b.startsWith(effect + "=") || b.startsWith(effect + "@")
        || b.equals(effect))) {
      throw new UserInputException("--effect [" + effect + "] is not one of the --band keys");
    }
    subject.check(plan.sampled());
    return new EnvelopeSetup(plan, subject);
  }

  private int runEnvelope(Runner runner, int threads, int shardIndex, int shardCount) {
    EnvelopeSetup setup = envelopeSetup(runner);
    EnvelopeRunner.Plan plan = setup.plan();
    if (resume && out != null) {
      EnvelopeRunner.checkResume(plan, out, force); // another plan's runs: refused, or replaced with --force
    }
    OutputDirectory.prepare("--out", out, force, resume ? null : spec.commandLine().getErr());
    PrintWriter err = spec.commandLine().getErr();
    Progress progress = new Progress(err);
    long start = System.nanoTime();
    EnvelopeRunner.Outcome outcome = EnvelopeRunner.run(plan, setup.subject().simulation(), out,
        new EnvelopeRunner.Options(threads, shardIndex, shardCount, resume), progress::line);
    progress.finish();
    err.println(String.format(java.util.Locale.ROOT, "lockvisor: envelope of %s: %d runs (%d ran, %d skipped) in %.1f s"
        + " wall with --jobs %d", file, outcome.runs(), outcome.ran(), outcome.skipped(),
        (System.nanoTime() - start) / 1e9, threads));
    outcome.failed().forEach(f -> err.println("lockvisor: envelope of " + file + ": " + f));
    PrintWriter stdout = spec.commandLine().getOut();
    if (outcome.summary().isPresent()) {
      EnvelopeReport.write(out, plan, outcome.summary().get(), false);
      EnvelopeReport.text(plan, outcome.summary().get()).forEach(stdout::println);
      stdout.println("wrote " + out.resolve(EnvelopeReport.JSON) + ", " + out.resolve(EnvelopeReport.HTML) + " and "
          + out.resolve("plots"));
    } else {
      stdout.println("envelope of " + file + ": shard " + shardIndex + "/" + shardCount + " ran " + outcome.ran()
          + " of " + outcome.runs() + " runs into " + out + "; merge the shards with 'lockvisor merge'");
    }
    stdout.flush();
    err.flush();
    return outcome.failed().isEmpty() ? Lockvisor.EXIT_OK : Lockvisor.EXIT_FAILED;
  }

  /**
   * {@code --emit}: checks the sweep like a run would, then writes the job description into DIR
   * and prints how to submit and merge it. Nothing runs here.
   */
  private int emitClusterJob() {
    ClusterJobs.Resources resources = emitOptions.resources();
    ClusterJobs.checkEmit(shard != null, resume);
    int perTask = jobs == null ? 1 : jobs;
    if (perTask < 1 || perTask > 1024) {
      throw new UserInputException("--jobs [" + perTask + "] is out of range; allowed: [1, 1024]");
    }
    Runner runner = lockvisor.injector().getInstance(Runner.class);
    if (!CostSettings.costs(sets).isEmpty()) {
      // Emitted tasks resume, and resumed points do not record their costs (see call()).
      throw new UserInputException("--emit with cost what-ifs " + CostSettings.costs(sets) + " is not supported:"
          + " emitted tasks resume, and a resumed point does not record its costs");
    }
    Experiment e = runner.validateTree(file.toString(), ExperimentFiles.load(file, sets, seed));
    List<String> extra = new ArrayList<>();
    int points;
    if (envelope) {
      points = envelopeSetup(runner).plan().samples();
      extra.add("--envelope");
      extra.add("--samples");
      extra.add(Integer.toString(points));
      if (seeds != null) {
        extra.add("--seeds");
        extra.add(seeds.toString());
      }
      params.forEach(p -> {
        extra.add("--param");
        extra.add(p);
      });
      bands.forEach(b -> {
        extra.add("--band");
        extra.add(b);
      });
      if (effect != null) {
        extra.add("--effect");
        extra.add(effect);
      }
    } else {
      points = SweepPoints.of(e).size();
    }
    if (!envelope && e.sweep().isEmpty() && e.replications() == 1) {
      throw new UserInputException(file + ": nothing to sweep; add [sweep] parameters or [replications] (or use"
          + " 'lockvisor run')");
    }
    int n = emitOptions.shards == null ? points : emitOptions.shards;
    if (n < 1 || n > points) {
      throw new UserInputException("--shards [" + n + "] is out of range; allowed: [1, " + points
          + "] (the sweep's points)");
    }
    ClusterJobs.Sweep sweep = new ClusterJobs.Sweep(e.name(), file, out, n, perTask, seed, sets, extra);
    List<java.nio.file.Path> plugins = lockvisor.pluginJars();
    String text = ClusterJobs.slurm(sweep, classPath(), plugins, resources);
    EmitOptions.warnNodeLocal(out, plugins, spec.commandLine().getErr());
    OutputDirectory.prepare("--out", out); // after every check of the input: no directory for a bad command
    ClusterJobs.write(out, text, "sweep [" + e.name() + "]: " + points + " points in " + n + " shards",
        spec.commandLine().getOut());
    return Lockvisor.EXIT_OK;
  }

  /** This lockvisor's class path, so that every task runs the same build (on the file system the nodes share). */
  static String classPath() {
    return System.getProperty("java.class.path");
  }

  /** Plots of every metric against the first swept parameter, beside sweep.json. */
  static void writePlots(Path out) {
    try {
      SweepPlots.write(ResultJson.MAPPER.readTree(out.resolve("sweep.json").toFile()), out.resolve("plots"));
    } catch (java.io.IOException ex) {
      throw new java.io.UncheckedIOException("cannot write the sweep plots into [" + out.resolve("plots") + "]", ex);
    }
  }
}

package org.lockvisor.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.lockvisor.experiment.UserInputException;
import org.lockvisor.experiment.model.Experiment;
import org.lockvisor.experiment.runner.ExperimentRunner;
import org.lockvisor.experiment.runner.ResultJson;
import org.lockvisor.experiment.runner.SweepRunner;
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
 * is in DIR. Progress goes to stderr.
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

  @Option(names = "--set", paramLabel = "PATH=VALUE", description = "Override a value (repeatable).")
  private List<String> sets = new ArrayList<>();

  @Option(names = "--max-memory", paramLabel = "SIZE",
      description = "Refuse, before building, a machine whose estimated heap exceeds SIZE, e.g. 512m or 2g"
          + " (default and ceiling: three quarters of the JVM's maximum heap).")
  private String maxMemory;

  @Override
  public Integer call() {
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
    ExperimentRunner runner = lockvisor.injector().getInstance(ExperimentRunner.class);
    runner.limitBuilding(Long.MAX_VALUE, "");
    CheckOptions.limitMemory(runner, maxMemory, threads); // each of the parallel runs builds its own machine
    Experiment e = runner.validateTree(file.toString(), ExperimentFiles.load(file, sets, seed));
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

  /** Plots of every metric against the first swept parameter, beside sweep.json. */
  static void writePlots(Path out) {
    try {
      SweepPlots.write(ResultJson.MAPPER.readTree(out.resolve("sweep.json").toFile()), out.resolve("plots"));
    } catch (java.io.IOException ex) {
      throw new java.io.UncheckedIOException("cannot write the sweep plots into [" + out.resolve("plots") + "]", ex);
    }
  }
}

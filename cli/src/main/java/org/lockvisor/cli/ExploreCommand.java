package org.lockvisor.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.lockvisor.experiment.SimulationFailedException;
import org.lockvisor.experiment.UserInputException;
import org.lockvisor.experiment.check.Perturbation;
import org.lockvisor.experiment.model.Experiment;
import org.lockvisor.experiment.model.ExperimentYaml;
import org.lockvisor.experiment.runner.ExperimentResult;
import org.lockvisor.experiment.runner.ExperimentRunner;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code lockvisor explore FILE --runs N [--seed S]}: schedule exploration. Re-runs the
 * experiment (the base and each variant, or one {@code --variant}) N times in invariant mode,
 * each run under its own perturbation — a permutation of simultaneous events and a bounded random
 * jitter on every work duration, both derived from S and the run's index — and reports the first
 * violation with the command that replays it (exit 1), or "no violation in N runs" (exit 0).
 */
@Command(name = "explore", mixinStandardHelpOptions = true,
    description = "Re-runs an experiment under perturbed schedules with invariants on; reports the first violation.")
public final class ExploreCommand implements Callable<Integer> {

  /** The most runs one explore may ask for. */
  static final int MAX_RUNS = 1_000_000;

  @ParentCommand
  private Lockvisor lockvisor;

  @Spec
  private CommandSpec spec;

  @Parameters(index = "0", paramLabel = "FILE", description = "Experiment YAML file.")
  private Path file;

  @Option(names = "--runs", paramLabel = "N", defaultValue = "100",
      description = "Perturbed runs per variant (default: ${DEFAULT-VALUE}).")
  private int runs;

  @Option(names = "--seed", paramLabel = "S", defaultValue = "1",
      description = "Exploration seed: the perturbation of run i derives from (S, i) (default: ${DEFAULT-VALUE}).")
  private long seed;

  @Option(names = "--set", paramLabel = "PATH=VALUE", description = "Override a value (repeatable), as for run.")
  private List<String> sets = new ArrayList<>();

  @Option(names = "--variant", paramLabel = "NAME", description = "Explore only this variant ('base' for the base).")
  private String variant;

  @Mixin
  private CheckOptions checks = new CheckOptions();

  @Override
  public Integer call() {
    if (runs < 1 || runs > MAX_RUNS) {
      throw new UserInputException("--runs must be in [1, " + MAX_RUNS + "]: [" + runs + "]");
    }
    ExperimentRunner runner = lockvisor.injector().getInstance(ExperimentRunner.class);
    checks.limit(runner, spec.commandLine().getErr()); // before the file is validated: validation builds every machine
    Experiment e = runner.validateTree(file.toString(), ExperimentFiles.load(file, sets, null));
    CheckOptions.validated(runner);
    List<String> labels = new ArrayList<>();
    if (variant == null || variant.equals("base")) {
      labels.add("base");
    }
    if (variant == null) {
      labels.addAll(e.variants().keySet());
    } else if (!variant.equals("base")) {
      ExperimentYaml.variant(e, variant);
      labels.add(variant);
    }
    checks.toRunChecks(true, 1, ""); // bad options fail before the first run
    String launcher = ReplayLauncher.of(lockvisor, runner.plugins());
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    long start = System.nanoTime();
    Progress progress = new Progress(err);
    long events = 0;
    int done = 0;
    for (int i = 0; i < runs; i++) {
      long perturb = Perturbation.seedOfRun(seed, i);
      for (String label : labels) {
        Experiment point = label.equals("base") ? e : ExperimentYaml.variant(e, label);
        String replay = checks.replay(launcher, file, sets, null, label, perturb);
        try {
          ExperimentResult r = runner.run(point, label, checks.toRunChecks(true, perturb, ""));
          events += r.events();
        } catch (SimulationFailedException ex) {
          progress.finish();
          out.printf(Locale.ROOT, "explore: violation in run %d of %d (variant %s, perturbation %d) after %d clean"
              + " simulations (%d variant(s) per run)%n", i + 1, runs, label, perturb, done, labels.size());
          out.println("  " + Lockvisor.oneLine(ex.getMessage()));
          out.println("  replay: " + replay);
          out.flush();
          return Lockvisor.EXIT_FAILED;
        }
        done++;
      }
      if (i + 1 < runs && (progress.terminal() || (i + 1) % 10 == 0)) {
        // a bar on a terminal; otherwise a plain line every 10 runs (explorations run thousands)
        progress.step("explore: run " + (i + 1), i + 1, runs);
      }
    }
    progress.finish();
    out.printf(Locale.ROOT, "explore: no violation in %d runs (%d per variant x %d variant(s) %s, exploration seed"
            + " %d, %d events, %.1f s)%n", done, runs, labels.size(), labels, seed, events,
        (System.nanoTime() - start) / 1e9);
    out.flush();
    return Lockvisor.EXIT_OK;
  }

}

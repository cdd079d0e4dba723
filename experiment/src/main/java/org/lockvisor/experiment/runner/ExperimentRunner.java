package org.lockvisor.experiment.runner;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.lockvisor.core.sim.EventBudgetExceededException;
import org.lockvisor.core.sim.EventHandler;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.experiment.SimulationFailedException;
import org.lockvisor.experiment.check.RunChecks;
import org.lockvisor.experiment.check.RunGuard;
import org.lockvisor.experiment.check.RunawayException;
import org.lockvisor.experiment.model.Durations;
import org.lockvisor.experiment.model.Experiment;
import org.lockvisor.experiment.model.ExperimentPlugins;
import org.lockvisor.experiment.model.ExperimentValidator;
import org.lockvisor.experiment.model.ExperimentYaml;
import org.lockvisor.experiment.model.InvalidExperimentException;
import org.lockvisor.experiment.model.Problem;
import org.lockvisor.experiment.model.SweepPoints;
import org.lockvisor.machine.observe.InvariantViolation;
import org.lockvisor.workloads.spi.Workload;

/**
 * Runs the machine an {@link Experiment} describes, built by {@link MachineAssembler}: warm-up,
 * reset of every statistic, measurement, collection. Before any run, {@link #validate} checks the
 * experiment, its sweep points and its variants, and assembles each machine without running it.
 * Each run owns its simulation (no shared mutable state between runs), so runs may execute in
 * parallel.
 *
 * <p>Run length: a fixed measurement window, or ({@code duration: until-done}) until every
 * workload has {@link Workload#finished() finished}. The runner then advances simulated time in
 * slices of {@link Experiment#doneCheckIntervalNs()} from the end of warm-up and asks the
 * workloads between slices — nothing per event, no event of its own, so the run's events and
 * fingerprint are those of a fixed run that ends at the same check — and ends the measurement at
 * the first check after the last one finished; a workload still running at {@link
 * Experiment#maxDurationNs()} fails the run.
 *
 * <p>Results: beside workload figures, device statistics and lock_stat, each guest's
 * guest-sampled {@link SymbolProfile} of the measurement window, every lock's counters summed by
 * algorithm ({@link LockTotals}) and, with {@code sample-interval}, what the {@link GuestSampler}
 * saw (its events are left out of the result's event count).
 */
public final class ExperimentRunner implements Runner {

  private final ExperimentPlugins plugins;
  private final ExperimentValidator validator;
  private final MachineAssembler assembler;

  public ExperimentRunner(ExperimentPlugins plugins) {
    this.plugins = plugins;
    this.validator = new ExperimentValidator(plugins);
    this.assembler = new MachineAssembler(plugins);
  }

  public ExperimentPlugins plugins() {
    return plugins;
  }

  /**
   * Limits the heap one machine may take to {@code bytes} ({@code source} names the setting in
   * messages, e.g. {@code --max-memory 2g}); 0 restores the default, three quarters of the JVM's
   * maximum heap. An experiment whose estimate is over the limit is refused before it is built.
   */
  public void limitMemory(long bytes, String source) {
    assembler.limitMemory(bytes, source);
  }

  /**
   * Stops the building of any machine (validation included) after {@link System#nanoTime()}
   * reaches {@code deadlineNanos}: a {@code --max-wall} that also covers the time before the
   * first event. {@code source} names the setting in the message.
   */
  public void limitBuilding(long deadlineNanos, String source) {
    assembler.limitBuilding(deadlineNanos, source);
  }

  /**
   * When the machine being built now began ({@link System#nanoTime()}), or 0 when none is: a
   * watchdog can stop a build that one plugin's start keeps busy past the wall-clock budget.
   */
  public long buildingSince() {
    return assembler.buildingSince();
  }

  /**
   * Validates {@code e} and its variants, then assembles each machine without running it (which
   * catches what only the plugins can see, e.g. a workload that needs a device the VM lacks).
   *
   * @throws InvalidExperimentException listing every problem
   */
  public void validate(String source, Experiment e) {
    validator.check(source, e);
    try {
      assembler.checkMemory(e); // once for the base: its variants would repeat the same line
    } catch (InvalidExperimentException ex) {
      throw new InvalidExperimentException(source, ex.problems());
    }
    List<Problem> problems = new ArrayList<>();
    List<Map<String, String>> points = SweepPoints.of(e);
    for (int i = 0; i < points.size(); i++) {
      Experiment point = e.sweep().isEmpty() ? e : ExperimentYaml.point(e, points.get(i), "");
      String prefix = e.sweep().isEmpty() ? "" : ExperimentValidator.pointLabel(i, points.get(i)) + ".";
      for (Problem p : assemblyProblems(point)) {
        problems.add(new Problem(prefix + p.path(), p.message()));
      }
      for (String variant : point.variants().keySet()) {
        for (Problem p : assemblyProblems(ExperimentYaml.variant(point, variant))) {
          problems.add(new Problem(prefix + "variants." + variant + (p.path().isEmpty() ? "" : "." + p.path()),
              p.message()));
        }
      }
    }
    if (!problems.isEmpty()) {
      throw new InvalidExperimentException(source, problems);
    }
  }

  /**
   * The experiment a YAML tree describes, validated as {@link #validate} does, plus the checks of
   * keys and types.
   *
   * @throws InvalidExperimentException listing every problem
   */
  public Experiment validateTree(String source, com.fasterxml.jackson.databind.JsonNode tree) {
    Experiment e = validator.validateTree(source, tree);
    validate(source, e);
    return e;
  }

  private List<Problem> assemblyProblems(Experiment e) {
    try {
      assembler.assemble(e);
      return List.of();
    } catch (InvalidExperimentException ex) {
      return ex.problems();
    }
  }

  /** The base experiment followed by each variant, in name order. */
  public List<ExperimentResult> runAll(String source, Experiment e) {
    validate(source, e);
    List<ExperimentResult> results = new ArrayList<>();
    results.add(run(e, "base"));
    for (String variant : e.variants().keySet()) {
      results.add(run(ExperimentYaml.variant(e, variant), variant));
    }
    return results;
  }

  /**
   * Adjusts the hypervisor configuration the profile gives (directed-yield variant, PLE shrink,
   * host background activity) for every run of this runner; the programmatic counterpart of the
   * experiment's hypervisor settings. Returns this runner.
   */
  public ExperimentRunner adjustHypervisor(
      java.util.function.UnaryOperator<org.lockvisor.machine.config.HypervisorConfig> adjust) {
    assembler.adjustHypervisor(adjust);
    return this;
  }

  /**
   * Runs {@code e} (assumed valid) and labels the result with {@code variant}, with the checks
   * of {@link RunChecks#defaults()} (invariant mode in the build's tests).
   */
  public ExperimentResult run(Experiment e, String variant) {
    return run(e, variant, RunChecks.defaults(), RunObserver.NONE);
  }

  /**
   * Runs {@code e} (assumed valid) with {@code checks}: invariant mode, runaway budgets and the
   * perturbations of schedule exploration. A violated invariant, a deadlock, a lost wakeup or an
   * exceeded budget fails the run with a {@link SimulationFailedException} whose message names
   * the event, the time, the threads and locks involved, and the replay command.
   */
  public ExperimentResult run(Experiment e, String variant, RunChecks checks) {
    return run(e, variant, checks, RunObserver.NONE);
  }

  /**
   * Runs {@code e} (assumed valid), labels the result with {@code variant}, and lets {@code
   * observer} see the machine when measurement starts and when it ends (to attach a trace, or to
   * write reports that need the machine).
   */
  public ExperimentResult run(Experiment e, String variant, RunObserver observer) {
    return run(e, variant, RunChecks.defaults(), observer);
  }

  /** Runs {@code e} with {@code checks} and {@code observer}. */
  public ExperimentResult run(Experiment e, String variant, RunChecks checks, RunObserver observer) {
    long wallStart = System.nanoTime();
    AssembledMachine a = assembler.assemble(e, checks);
    Simulation sim = a.machine.sim();
    RunGuard guard = checks.guarded() ? new RunGuard(a.machine, checks, a.checkedLocks).install() : null;
    try {
      sim.runUntil(e.warmupNs());
      a.resetStats();
      long[] cpuAtStart = a.threadCpu();
      AccountWindow window = AccountWindow.open(a.machine);
      observer.measurementStarted(a.machine);
      long end;
      if (e.untilDone()) {
        end = runUntilDone(e, variant, a);
      } else {
        end = e.warmupNs() + e.durationNs();
        sim.runUntil(end);
      }
      if (guard != null) {
        guard.finish();
      }
      ExperimentResult result = a.result(e, variant, cpuAtStart, window, System.nanoTime() - wallStart, end);
      observer.finished(a.machine, result, a.kernelLocks());
      return result;
    } catch (InvariantViolation | RunawayException ex) {
      EventHandler h = sim.currentHandler();
      throw new SimulationFailedException("experiment [" + e.name() + "] variant [" + variant + "]: "
          + ex.getMessage() + "; at event #" + sim.eventsProcessed() + " (" + (h == null ? "none"
          : h.getClass().getSimpleName() + " " + h) + ")" + (checks.perturbSeed() != 0
          ? "; perturbation " + checks.perturbSeed() : "") + (checks.replay().isEmpty() ? ""
          : "; replay: " + checks.replay()), ex);
    } catch (SimulationFailedException ex) {
      throw ex;
    } catch (EventBudgetExceededException ex) {
      throw new SimulationFailedException("experiment [" + e.name() + "] variant [" + variant + "] failed at t="
          + sim.now() + "ns: " + ex.getMessage() + (checks.replay().isEmpty() ? "" : "; replay: " + checks.replay()),
          ex);
    } catch (RuntimeException ex) {
      // A plugin (or the machine under it) threw while the simulation ran: fail this run, name the plugin.
      String plugin = new PluginFault(plugins).attribute(ex);
      throw new SimulationFailedException("experiment [" + e.name() + "] variant [" + variant + "]: "
          + (plugin.isEmpty() ? "the simulation" : plugin) + " failed while running at t=" + sim.now() + "ns: "
          + PluginFault.describe(ex) + (checks.replay().isEmpty() ? "" : "; replay: " + checks.replay()), ex);
    }
  }

  /**
   * Runs the measurement of an until-done experiment: slices of {@code done-check-interval} from
   * the end of warm-up until every workload has finished, at most {@code max-duration}.
   *
   * @return the simulated time of the check that found them all finished
   * @throws SimulationFailedException when they finished during warm-up or were still running at the cap
   */
  private static long runUntilDone(Experiment e, String variant, AssembledMachine a) {
    Simulation sim = a.machine.sim();
    long start = e.warmupNs();
    long cap = start + e.maxDurationNs();
    long t = start;
    while (!a.allFinished() && t < cap) {
      t = Math.min(cap, t + e.doneCheckIntervalNs());
      sim.runUntil(t);
    }
    String run = "experiment [" + e.name() + "] variant [" + variant + "]: duration [" + Experiment.UNTIL_DONE + "]: ";
    if (!a.allFinished()) {
      List<String> running = new ArrayList<>();
      for (int i = 0; i < a.workloads.size(); i++) {
        Workload w = a.workloads.get(i);
        if (!w.finished()) {
          running.add(a.workloadVms.get(i) + "/" + w.name() + " (" + w.model() + ")");
        }
      }
      throw new SimulationFailedException(run + running.size() + " of " + a.workloads.size()
          + " workloads still running after max-duration [" + Durations.format(e.maxDurationNs())
          + "] of simulated time: " + running + "; raise [max-duration] or give a fixed duration");
    }
    if (t == start && !a.workloads.isEmpty()) {
      throw new SimulationFailedException(run + "every workload finished during the warm-up (by "
          + Durations.format(a.lastFinishedNs()) + "), before the measurement began; shorten [warmup] (e.g. to [0])");
    }
    return t;
  }
}

package org.lockvisor.reproductions.support;

import static com.google.common.base.Preconditions.checkArgument;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.common.collect.ImmutableList;
import java.util.Map;
import org.lockvisor.experiment.SimulationFailedException;
import org.lockvisor.experiment.UserInputException;
import org.lockvisor.experiment.check.RunChecks;
import org.lockvisor.experiment.model.Experiment;
import org.lockvisor.experiment.model.ExperimentYaml;
import org.lockvisor.experiment.model.InvalidExperimentException;
import org.lockvisor.experiment.model.Problem;
import org.lockvisor.experiment.runner.ExperimentResult;
import org.lockvisor.experiment.runner.ExperimentRunner;
import org.lockvisor.experiment.runner.RunObserver;
import org.lockvisor.reports.RunOutputs;
import org.lockvisor.reproductions.api.ExperimentRun;
import org.lockvisor.reproductions.api.Reproduction;
import org.lockvisor.reproductions.api.ReproductionOptions;

/**
 * An experiment file shipped in a reproduction's jar (the resource {@code
 * org/lockvisor/reproductions/experiments/<file>.yaml}, {@link Reproduction#EXPERIMENTS}, read by
 * {@link #load(Reproduction, String)} from the owning reproduction's class loader) with the
 * settings a reproduction applies to it: the same file {@code lockvisor run} takes ({@code
 * reproduce NAME --export-experiments DIR} writes it), the same {@code --set} path language
 * ({@link ExperimentYaml#set}), the same validation and the same runner. A reproduction's run of a
 * point is therefore {@code lockvisor run <file>.yaml --set ... --variant ...}, event for event.
 *
 * <p>Public for reproduction plugins: a third-party reproduction (built against the bom with
 * {@code lockvisor-reproductions} as a {@code provided} dependency, loaded with {@code --plugins})
 * uses it exactly as the built-in ones do; see docs/plugins/writing-a-reproduction.md.
 *
 * <p>Immutable: {@link #with} and {@link #withWhatIf} return new values; the tree is copied, never
 * shared. The experiment validated by a runner is kept for the next call with the same runner, so
 * the variants of one point are validated once.
 */
public final class ShippedExperiment {

  /** The experiment validated by one runner (the variants of a point share it). */
  private record Validated(ExperimentRunner runner, Experiment experiment) {}

  private final String file;
  private final ObjectNode tree;
  private final ImmutableList<String> settings;
  /** The last validation, by runner identity: this value's tree never changes, nor does a runner's plugins. */
  private volatile Validated validated;

  private ShippedExperiment(String file, ObjectNode tree, ImmutableList<String> settings) {
    this.file = file;
    this.tree = tree;
    this.settings = settings;
  }

  /**
   * The shipped file {@code file} (base name, without {@code .yaml}) of reproduction {@code owner},
   * as written: {@link Reproduction#experimentFile owner.experimentFile(file)}, the resource read
   * from the owner's own class loader, so a reproduction in a {@code --plugins} jar (a child of
   * lockvisor's loader) finds the file in its jar. It is the content {@code reproduce NAME
   * --export-experiments} writes and {@code reproduce --set} is checked against.
   *
   * @throws IllegalArgumentException when {@code file} is not one of {@code owner}'s {@link
   *     Reproduction#experimentFiles()} (a fault of the reproduction: an undeclared file escapes
   *     {@code --set} validation, {@code --export-experiments} and the discovery check of names)
   * @throws IllegalStateException when it is not on the class path or is not an experiment tree
   *     (a packaging fault, not the user's)
   */
  public static ShippedExperiment load(Reproduction owner, String file) {
    checkArgument(owner != null, "owner must not be null");
    checkArgument(file != null && file.matches("[a-z0-9][a-z0-9._-]*"), "bad shipped experiment name [%s]", file);
    checkArgument(owner.experimentFiles().contains(file),
        "reproduction [%s] loads shipped experiment [%s] but does not declare it; its experimentFiles(): %s",
        owner.name(), file, owner.experimentFiles());
    byte[] content = owner.experimentFile(file);
    try {
      return new ShippedExperiment(file, (ObjectNode) ExperimentYaml.parse(file + ".yaml", content),
          ImmutableList.of());
    } catch (InvalidExperimentException e) {
      throw new IllegalStateException("reproduction [" + owner.name() + "]: shipped experiment ["
          + Reproduction.EXPERIMENTS + file + ".yaml] is broken: " + e.getMessage(), e);
    }
  }

  /** The file's base name, e.g. {@code r1-vhost-wakeup}. */
  public String file() {
    return file;
  }

  /** The settings applied so far, {@code path=value}, in order. */
  public ImmutableList<String> settings() {
    return settings;
  }

  /** A copy of the experiment tree with every setting applied. */
  public ObjectNode tree() {
    return tree.deepCopy();
  }

  /**
   * This experiment with {@code path=value} applied, in the path language of {@code run --set}
   * (e.g. {@code vms[0].workloads[0].options.streams}, {@code 64}). For the reproduction's own
   * settings: a path the language refuses is a fault of the reproduction.
   *
   * @throws IllegalArgumentException when the path cannot be applied
   */
  public ShippedExperiment with(String path, String value) {
    ObjectNode copy = tree.deepCopy();
    Problem p = ExperimentYaml.set(copy, path, value);
    checkArgument(p == null, "shipped experiment [%s]: cannot set [%s=%s]: %s", file, path, value, p);
    return new ShippedExperiment(file, copy, ImmutableList.<String>builder().addAll(settings)
        .add(path + "=" + value).build());
  }

  /**
   * This experiment with the user's {@code reproduce --set} settings applied: every raw
   * experiment path and every target of a path-bound parameter ({@link
   * org.lockvisor.reproductions.api.ReproductionParameter#at}) that is this file's or every file's, as
   * {@link org.lockvisor.reproductions.api.WhatIf#pathsOf} holds them (checked before anything ran). Cost
   * overrides reach the machines through {@link ReproductionOptions#whatIfRunner()}; parameters
   * bound to no path are the reproduction's to read.
   *
   * @throws UserInputException when a setting cannot be applied to this file
   */
  public ShippedExperiment withWhatIf(ReproductionOptions options) {
    return withPaths(options.whatIf().pathsOf(file));
  }

  /**
   * {@link #withWhatIf(ReproductionOptions)} of a file of {@code reproduction}, its derived
   * bindings' paths first ({@link Reproduction#derivedBindings()}: computed from the parameters
   * set, else their defaults at the scale of {@code options}, {@link
   * org.lockvisor.reproductions.api.WhatIf#pathsOf(Reproduction, String, boolean, java.util.function.Function)}).
   *
   * @throws UserInputException when a setting cannot be applied to this file or a derived binding
   *     refuses the values
   */
  public ShippedExperiment withWhatIf(ReproductionOptions options, Reproduction reproduction) {
    return withPaths(options.whatIf().pathsOf(reproduction, file, options.quick(), options::profile));
  }

  private ShippedExperiment withPaths(Map<String, String> paths) {
    ShippedExperiment out = this;
    for (Map.Entry<String, String> e : paths.entrySet()) {
      ObjectNode copy = out.tree.deepCopy();
      Problem p = ExperimentYaml.set(copy, e.getKey(), e.getValue());
      if (p != null) {
        throw new UserInputException("--set [" + e.getKey() + "=" + e.getValue() + "]: in shipped experiment "
            + file + ".yaml: " + p);
      }
      out = new ShippedExperiment(file, copy, ImmutableList.<String>builder().addAll(out.settings)
          .add(e.getKey() + "=" + e.getValue()).build());
    }
    return out;
  }

  /**
   * The experiment, validated by {@code runner} as {@code lockvisor run} validates a file (keys,
   * types, plugins and their options, every variant assembled once); kept for the next call with
   * the same runner.
   *
   * @throws InvalidExperimentException listing every problem (the CLI prints one line each, exit 2)
   */
  public Experiment experiment(ExperimentRunner runner) {
    Validated v = validated;
    if (v != null && v.runner() == runner) {
      return v.experiment();
    }
    Experiment e = runner.validateTree(source(), tree.deepCopy());
    validated = new Validated(runner, e);
    return e;
  }

  /** {@code <file>.yaml --set a=b --set c=d}: what {@code lockvisor run} would be given. */
  public String source() {
    StringBuilder b = new StringBuilder(file).append(".yaml");
    settings.forEach(s -> b.append(" --set ").append(s));
    return b.toString();
  }

  /**
   * Runs {@code variant} ({@code base} or a variant of the file) through {@link
   * ReproductionOptions#whatIfRunner()} (the injected runner, with the what-if's costs), reports
   * the run to {@link ReproductionOptions#runs()} as {@code label} and, when the runs are captured
   * ({@code reproduce --out}), with its files, which the run directory writer of {@code run --out}
   * writes.
   *
   * @param reproduction the reproduction's name (the run directory's provenance and messages)
   * @param baselineLabel the run the differential folded stacks compare against, or {@code null}
   * @throws SimulationFailedException when the simulation breaks; the message names the run
   * @throws InvalidExperimentException when the settings make the experiment invalid
   */
  public ExperimentResult run(ReproductionOptions options, String reproduction, String variant, String label,
      String baselineLabel) {
    ExperimentRunner runner = options.whatIfRunner();
    Experiment base = experiment(runner);
    Experiment e = variant.equals("base") ? base : ExperimentYaml.variant(base, variant);
    RunOutputs outputs = options.runs().capturing()
        ? RunOutputs.ownDirectory(runner.plugins(), e.arch(), variant, options.runs().traceEvents())
        : null;
    ExperimentResult result;
    try {
      result = runner.run(e, variant, RunChecks.defaults(), outputs == null ? RunObserver.NONE : outputs);
    } catch (SimulationFailedException ex) {
      throw new SimulationFailedException(reproduction + ": run " + label + " failed: " + ex.getMessage(), ex);
    } catch (RuntimeException ex) {
      throw new SimulationFailedException(reproduction + ": run " + label + " (" + source() + " --variant " + variant
          + ") failed: " + ex.getMessage(), ex);
    }
    options.runs().done(new ExperimentRun(reproduction, label, baselineLabel, source() + " --variant " + variant,
        tree.deepCopy(), base, runner.plugins(), result, outputs));
    return result;
  }

  @Override
  public String toString() {
    return source();
  }
}

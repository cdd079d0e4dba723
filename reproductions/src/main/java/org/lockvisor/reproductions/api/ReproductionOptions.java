package org.lockvisor.reproductions.api;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.base.Suppliers;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Supplier;
import org.lockvisor.arch.spi.ArchProfile;
import org.lockvisor.arch.spi.ArchProfileFactory;
import org.lockvisor.core.plugin.DidYouMean;
import org.lockvisor.experiment.UserInputException;
import org.lockvisor.experiment.model.PluginRegistry;
import org.lockvisor.experiment.runner.ExperimentRunner;

/**
 * How to run a reproduction.
 *
 * @param quick shorter runs and fewer replications, for smoke tests and CI; the direction of the
 *     result must still hold, the bands may be wider
 * @param outputDirectory where the reproduction may write its own artefacts (plots, traces,
 *     tables); absent means write nothing. Files must be written with {@code AtomicFiles}.
 * @param runs where the reproduction reports each internal run it performs (progress, and with an
 *     output directory the run's files, written under {@code runs/<label>/})
 * @param whatIf cost overrides and parameter values of a what-if ({@code reproduce --set}); {@link
 *     WhatIf#NONE} for the reproduction itself. A reproduction obtains every arch profile through
 *     {@link #profile} and every parameter through {@link #parameter(ReproductionParameter)}, so
 *     that the what-if reaches every machine it builds.
 * @param runner the experiment runner every machine of the reproduction is built and run by: the
 *     one the composition root injects for {@code lockvisor run} (the same plugins), so that
 *     {@code reproduce NAME} and {@code run} of its shipped experiment file process the same
 *     events. Without it (the convenience constructors, tests) a runner over lockvisor's own class
 *     path ({@link PluginRegistry#classPath()}). The runner is the unchanged one; {@link
 *     #whatIfRunner()} carries the what-if's cost overrides.
 */
public record ReproductionOptions(boolean quick, Optional<Path> outputDirectory, ReproductionRuns runs,
    WhatIf whatIf, ExperimentRunner runner) {

  private static final Supplier<ExperimentRunner> CLASS_PATH_RUNNER = Suppliers.memoize(
      () -> new ExperimentRunner(PluginRegistry.classPath().experimentPlugins()));

  public ReproductionOptions {
    checkArgument(outputDirectory != null, "outputDirectory must not be null; use Optional.empty()");
    checkArgument(runs != null, "runs must not be null; use ReproductionRuns.NONE");
    checkArgument(whatIf != null, "whatIf must not be null; use WhatIf.NONE");
    checkArgument(runner != null, "runner must not be null; use ReproductionOptions.classPathRunner()");
  }

  /** Options of a what-if run by a runner over lockvisor's own class path ({@link #classPathRunner()}). */
  public ReproductionOptions(boolean quick, Optional<Path> outputDirectory, ReproductionRuns runs, WhatIf whatIf) {
    this(quick, outputDirectory, runs, whatIf, classPathRunner());
  }

  /** Options of the reproduction itself (no what-if). */
  public ReproductionOptions(boolean quick, Optional<Path> outputDirectory, ReproductionRuns runs) {
    this(quick, outputDirectory, runs, WhatIf.NONE);
  }

  /** Options that report no runs. */
  public ReproductionOptions(boolean quick, Optional<Path> outputDirectory) {
    this(quick, outputDirectory, ReproductionRuns.NONE);
  }

  public static ReproductionOptions defaults() {
    return new ReproductionOptions(false, Optional.empty());
  }

  /**
   * The runner of code that runs without an injector (tests, benchmarks, the envelope and
   * calibration drivers): the plugins of lockvisor's own class path, built once.
   */
  public static ExperimentRunner classPathRunner() {
    return CLASS_PATH_RUNNER.get();
  }

  /** These options with {@code whatIf} instead of this one's (e.g. the part that applies to one reproduction). */
  public ReproductionOptions withWhatIf(WhatIf other) {
    return new ReproductionOptions(quick, outputDirectory, runs, other, runner);
  }

  /**
   * The runner with the what-if's cost overrides applied to every arch profile it builds on
   * ({@link WhatIf#runner}, the same as {@code run --set cost.<profile>.<KEY>=<v>}); {@link
   * #runner()} itself without a what-if.
   */
  public ExperimentRunner whatIfRunner() {
    return whatIf.runner(runner);
  }

  /**
   * The registered arch profile {@code name} with the what-if's cost overrides applied (the
   * profile itself when there are none).
   *
   * @throws IllegalArgumentException for an unknown profile
   */
  public ArchProfile profile(String name) {
    ArchProfileFactory f = runner.plugins().arches().get(name);
    if (f == null) {
      throw new IllegalArgumentException(DidYouMean.unknownMessage("arch profile", name,
          runner.plugins().arches().keySet()));
    }
    return whatIf.apply(f.create());
  }

  /** The value given for parameter {@code name}, as given, if any. */
  public Optional<String> parameter(String name) {
    return Optional.ofNullable(whatIf.parameters().get(name));
  }

  /**
   * The value given for {@code parameter}, parsed, if any.
   *
   * @throws UserInputException if the value given is not allowed
   */
  public <T> Optional<T> parameter(ReproductionParameter<T> parameter) {
    return parameter(parameter.name()).map(parameter::parse);
  }
}

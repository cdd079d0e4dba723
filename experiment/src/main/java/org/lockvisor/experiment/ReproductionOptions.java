package org.lockvisor.experiment;

import static com.google.common.base.Preconditions.checkArgument;

import java.nio.file.Path;
import java.util.Optional;
import org.lockvisor.arch.spi.ArchProfile;
import org.lockvisor.experiment.model.PluginRegistry;

/**
 * How to run a reproduction.
 *
 * @param quick shorter runs and fewer replications, for smoke tests and CI; the direction of the
 *     result must still hold, the bands may be wider
 * @param outputDirectory where the reproduction may write its own artefacts (plots, traces,
 *     tables); absent means write nothing. Files must be written with {@code AtomicFiles}.
 * @param runs where the reproduction reports each internal run it performs (progress, and with an
 *     output directory the run's capture, written under {@code runs/<label>/})
 * @param whatIf cost overrides and parameter values of a what-if ({@code reproduce --set}); {@link
 *     WhatIf#NONE} for the reproduction itself. A reproduction obtains every arch profile through
 *     {@link #profile} and every parameter through {@link #parameter(ReproductionParameter)}, so
 *     that the what-if reaches every machine it builds.
 */
public record ReproductionOptions(boolean quick, Optional<Path> outputDirectory, ReproductionRuns runs,
    WhatIf whatIf) {

  public ReproductionOptions {
    checkArgument(outputDirectory != null, "outputDirectory must not be null; use Optional.empty()");
    checkArgument(runs != null, "runs must not be null; use ReproductionRuns.NONE");
    checkArgument(whatIf != null, "whatIf must not be null; use WhatIf.NONE");
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
   * The registered arch profile {@code name} with the what-if's cost overrides applied (the
   * profile itself when there are none).
   *
   * @throws IllegalArgumentException for an unknown profile
   */
  public ArchProfile profile(String name) {
    return whatIf.apply(PluginRegistry.classPath().archProfile(name));
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

package org.lockvisor.experiment;

import static com.google.common.base.Preconditions.checkArgument;

import java.nio.file.Path;
import java.util.Optional;

/**
 * How to run a reproduction.
 *
 * @param quick shorter runs and fewer replications, for smoke tests and CI; the direction of the
 *     result must still hold, the bands may be wider
 * @param outputDirectory where the reproduction may write its own artefacts (plots, traces,
 *     tables); absent means write nothing. Files must be written with {@code AtomicFiles}.
 * @param runs where the reproduction reports each internal run it performs (progress, and with an
 *     output directory the run's capture, written under {@code runs/<label>/})
 */
public record ReproductionOptions(boolean quick, Optional<Path> outputDirectory, ReproductionRuns runs) {

  public ReproductionOptions {
    checkArgument(outputDirectory != null, "outputDirectory must not be null; use Optional.empty()");
    checkArgument(runs != null, "runs must not be null; use ReproductionRuns.NONE");
  }

  /** Options that report no runs. */
  public ReproductionOptions(boolean quick, Optional<Path> outputDirectory) {
    this(quick, outputDirectory, ReproductionRuns.NONE);
  }

  public static ReproductionOptions defaults() {
    return new ReproductionOptions(false, Optional.empty());
  }
}

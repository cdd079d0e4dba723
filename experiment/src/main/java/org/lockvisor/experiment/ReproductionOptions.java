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
 */
public record ReproductionOptions(boolean quick, Optional<Path> outputDirectory) {

  public ReproductionOptions {
    checkArgument(outputDirectory != null, "outputDirectory must not be null; use Optional.empty()");
  }

  public static ReproductionOptions defaults() {
    return new ReproductionOptions(false, Optional.empty());
  }
}

package org.lockvisor.experiment;

import java.util.List;
import java.util.Set;
import org.lockvisor.core.plugin.Plugin;

/**
 * A seed result that lockvisor re-derives from the simulated mechanism, e.g. "vhost: wake up
 * worker outside spin_lock". Reproductions are plugins of kind {@code reproduction}: one
 * {@code final} class registered with {@code @AutoService(Reproduction.class)}, found by
 * ServiceLoader and run by {@code lockvisor reproduce <name>|all}.
 *
 * <p>A reproduction checks direction and bands against the published figures it prints beside
 * its own; it never fits a constant to its own answer (see DESIGN.md, calibration honesty).
 */
public interface Reproduction extends Plugin {

  String KIND = "reproduction";

  @Override
  default String kind() {
    return KIND;
  }

  /**
   * Runs the experiments behind this reproduction and judges them.
   *
   * @throws SimulationFailedException when a simulation breaks (an invariant, a phase that cannot
   *     finish); the message names the plugin or phase
   * @throws UserInputException when {@code options} are unusable for this reproduction
   */
  ReproductionResult run(ReproductionOptions options);

  /**
   * The what-if parameters this reproduction accepts ({@code reproduce <name> --set
   * <parameter>=<value>}), read in {@link #run} with {@link
   * ReproductionOptions#parameter(ReproductionParameter)}. None by default.
   */
  default List<ReproductionParameter<?>> parameters() {
    return List.of();
  }

  /**
   * The arch profiles this reproduction builds machines on, each obtained in {@link #run} with
   * {@link ReproductionOptions#profile}: a what-if cost override ({@code --set
   * cost.<profile>.<KEY>=<number>}) is accepted only for these, so that it never goes silently
   * unused. None by default.
   */
  default Set<String> archProfiles() {
    return Set.of();
  }

  /**
   * The estimated costs an envelope of this reproduction samples besides its declared parameters,
   * as {@code cost.<profile>.<KEY>} (a profile of {@link #archProfiles()}, an estimate with a
   * range): the constants its mechanism is known to be sensitive to. None by default.
   */
  default List<String> envelopeCosts() {
    return List.of();
  }

  /**
   * What {@code reproduce <name> --calibrate} fits by default: names of declared parameters with a
   * numeric domain ({@link ReproductionParameter#domain()}) or {@code cost.<profile>.<KEY>} of an
   * estimate with a range on a profile of {@link #archProfiles()}, few enough for the published
   * baseline figures to determine them. None by default.
   */
  default List<String> calibrationParameters() {
    return List.of();
  }
}

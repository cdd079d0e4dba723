package org.lockvisor.experiment;

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
}

package org.lockvisor.experiment.runner;

import com.fasterxml.jackson.databind.JsonNode;
import org.lockvisor.experiment.check.RunChecks;
import org.lockvisor.experiment.model.Experiment;
import org.lockvisor.experiment.model.ExperimentPlugins;

/**
 * What the {@code run}, {@code validate} and {@code sweep} commands (and a sweep's runner) ask of
 * an {@link ExperimentRunner}: its plugins, its build limits, validation, and a run. An interface
 * so that a command's test can hand the command a mock and check what it passes and what it makes
 * of the answers, without a simulation; {@link ExperimentRunner} is the one implementation.
 */
public interface Runner {

  /** See {@link ExperimentRunner#plugins()}. */
  ExperimentPlugins plugins();

  /** See {@link ExperimentRunner#limitMemory(long, String)}. */
  void limitMemory(long bytes, String source);

  /** See {@link ExperimentRunner#limitBuilding(long, String)}. */
  void limitBuilding(long deadlineNanos, String source);

  /** See {@link ExperimentRunner#buildingSince()}. */
  long buildingSince();

  /** See {@link ExperimentRunner#validateTree(String, JsonNode)}. */
  Experiment validateTree(String source, JsonNode tree);

  /** See {@link ExperimentRunner#run(Experiment, String)}. */
  ExperimentResult run(Experiment e, String variant);

  /** See {@link ExperimentRunner#run(Experiment, String, RunChecks, RunObserver)}. */
  ExperimentResult run(Experiment e, String variant, RunChecks checks, RunObserver observer);
}

package org.lockvisor.experiment;

/**
 * A simulation could not complete: a broken invariant, a phase that did not finish, a plugin that
 * misbehaved. The message names the plugin or the phase; the CLI exits with status 1.
 */
public final class SimulationFailedException extends RuntimeException {

  public SimulationFailedException(String message) {
    super(message);
  }

  public SimulationFailedException(String message, Throwable cause) {
    super(message, cause);
  }
}

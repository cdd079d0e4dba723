package org.lockvisor.experiment.check;

/** A run exceeded its event or wall-clock budget; the message names the busiest event type and thread. */
public final class RunawayException extends RuntimeException {
  public RunawayException(String message) {
    super(message);
  }
}

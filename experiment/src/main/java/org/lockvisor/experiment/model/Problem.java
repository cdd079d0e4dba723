package org.lockvisor.experiment.model;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * One problem in an experiment: where it is ({@code vms[0].locks.spinlock}; empty for the file
 * itself) and what is wrong, with the bad value in brackets and the allowed values.
 */
public record Problem(String path, String message) {
  public Problem {
    checkArgument(path != null, "path must not be null");
    checkArgument(message != null && !message.isBlank(), "message must not be blank");
  }

  @Override
  public String toString() {
    return path.isEmpty() ? message : path + ": " + message;
  }
}

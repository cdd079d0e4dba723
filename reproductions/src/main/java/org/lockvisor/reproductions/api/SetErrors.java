package org.lockvisor.reproductions.api;

import org.lockvisor.experiment.UserInputException;
import org.lockvisor.experiment.model.Problem;

/**
 * How a {@code --set} setting is refused, for {@link WhatIf} (parsing and binding) and {@link
 * WhatIfPaths} (its experiment paths) alike: one line naming the setting as given, then why.
 *
 * <p>Split out of {@link WhatIf}.
 */
final class SetErrors {

  /** The forms a setting takes, for messages. */
  static final String FORMS =
      "cost.<profile>.<COST_KEY>=<number> or <parameter>=<value> or <experiment path>=<value>";

  private SetErrors() {}

  static UserInputException bad(String setting, String message) {
    return new UserInputException("--set [" + Problem.echo(setting) + "]: " + message);
  }
}

package org.lockvisor.experiment;

/**
 * The user's input (a command-line value, an experiment file, an option) is wrong. The message
 * says what failed, the offending value in brackets, and the allowed values; the CLI prints it
 * alone, with no stack trace, and exits with status 2.
 */
public final class UserInputException extends RuntimeException {

  public UserInputException(String message) {
    super(message);
  }

  public UserInputException(String message, Throwable cause) {
    super(message, cause);
  }
}

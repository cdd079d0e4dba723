package org.lockvisor.experiment.model;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * One problem in an experiment: where it is ({@code vms[0].locks.spinlock}; empty for the file
 * itself) and what is wrong, with the bad value in brackets and the allowed values.
 */
public record Problem(String path, String message) {

  /** The most characters of a user's value a message repeats ({@link #echo}). */
  public static final int MAX_ECHO = 80;
  /** The most characters of a path or a message kept: a problem is one readable line. */
  static final int MAX_PATH = 300;
  static final int MAX_MESSAGE = 900;

  public Problem {
    checkArgument(path != null, "path must not be null");
    checkArgument(message != null && !message.isBlank(), "message must not be blank");
    path = cap(path, MAX_PATH);
    message = cap(message, MAX_MESSAGE);
  }

  /** {@code value} as a message repeats it: at most {@value #MAX_ECHO} characters, the rest counted. */
  public static String echo(String value) {
    return cap(value, MAX_ECHO);
  }

  /** {@code text} cut to {@code max} characters with {@code ... (N more characters)}. */
  public static String cap(String text, int max) {
    if (text == null || text.length() <= max) {
      return text;
    }
    return text.substring(0, max) + "... (" + (text.length() - max) + " more characters)";
  }

  @Override
  public String toString() {
    return path.isEmpty() ? message : path + ": " + message;
  }
}

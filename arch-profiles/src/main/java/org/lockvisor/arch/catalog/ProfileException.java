package org.lockvisor.arch.catalog;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.collect.ImmutableList;
import java.util.List;

/**
 * A profile file that cannot be used, with every problem found in it; the CLI prints the message
 * and exits with status 2. Never wraps a parser stack trace: each problem names the YAML path, the
 * offending value in brackets, and what is allowed.
 */
public final class ProfileException extends Exception {

  private static final long serialVersionUID = 1L;

  /** One problem: where in the file ({@code costs.ATOMIC_RMW}, or {@code <file>} for the whole file) and what. */
  public record Problem(String path, String message) {
    public Problem {
      checkArgument(path != null && message != null, "problem needs a path and a message");
    }

    @Override
    public String toString() {
      return path + ": " + message;
    }
  }

  private final String origin;
  private final ImmutableList<Problem> problems;

  public ProfileException(String origin, List<Problem> problems) {
    super(format(origin, problems));
    checkArgument(!problems.isEmpty(), "a ProfileException needs at least one problem");
    this.origin = origin;
    this.problems = ImmutableList.copyOf(problems);
  }

  /** The file (or other origin) the problems are in. */
  public String origin() {
    return origin;
  }

  /** Every problem, in document order. */
  public ImmutableList<Problem> problems() {
    return problems;
  }

  private static String format(String origin, List<Problem> problems) {
    StringBuilder sb = new StringBuilder("arch profile ").append(origin).append(" has ")
        .append(problems.size()).append(problems.size() == 1 ? " problem:" : " problems:");
    for (Problem p : problems) {
      sb.append("\n  ").append(p);
    }
    return sb.toString();
  }
}

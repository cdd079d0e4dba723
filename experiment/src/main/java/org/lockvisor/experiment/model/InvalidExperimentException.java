package org.lockvisor.experiment.model;

import com.google.common.collect.ImmutableList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * An experiment with problems, all of them: the CLI prints one line per problem and exits with
 * status 2; code gets the list.
 */
public final class InvalidExperimentException extends RuntimeException {
  private final String source;
  private final ImmutableList<Problem> problems;

  public InvalidExperimentException(String source, List<Problem> problems) {
    super(message(source, problems));
    this.source = source;
    this.problems = ImmutableList.copyOf(problems);
  }

  private static String message(String source, List<Problem> problems) {
    return problems.stream().map(p -> (source.isEmpty() ? "" : source + ": ") + p)
        .collect(Collectors.joining("\n"));
  }

  /** The file (or "builder") the experiment came from; may be empty. */
  public String source() {
    return source;
  }

  public ImmutableList<Problem> problems() {
    return problems;
  }

  /** One line per problem, each prefixed with the source. */
  public List<String> lines() {
    return List.of(getMessage().split("\n"));
  }
}

package org.lockvisor.core.sim;

/** A run processed more events than its budget allows: a runaway model or a too-long run. */
public final class EventBudgetExceededException extends RuntimeException {
  private final long budget;
  private final long time;

  public EventBudgetExceededException(long budget, long time) {
    super("event budget of " + budget + " events exceeded at simulated time " + time + " ns");
    this.budget = budget;
    this.time = time;
  }

  public long budget() {
    return budget;
  }

  public long time() {
    return time;
  }
}

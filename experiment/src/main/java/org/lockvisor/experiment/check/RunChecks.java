package org.lockvisor.experiment.check;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * What a run checks and perturbs.
 *
 * @param invariants check the machine and lock invariants after every event, and look for
 *     deadlocks and lost wakeups
 * @param eventBudget fail the run after this many events ({@link Long#MAX_VALUE}: no limit)
 * @param wallBudgetNs fail the run after this much wall-clock time ({@link Long#MAX_VALUE}: none)
 * @param perturbSeed schedule exploration: 0 runs unperturbed; otherwise the seed of the
 *     tie-break salt (order of simultaneous events) and of the work-duration jitter
 * @param jitterPercent bound of the work-duration jitter, in percent of each duration (0..50)
 * @param graceNs how long a sleeper may wait with its condition true and no wakeup in flight, or
 *     a sleeping lock waiter may wait for a free lock, before it is reported
 * @param replay the command that replays this run, appended to failure messages (may be empty)
 */
public record RunChecks(boolean invariants, long eventBudget, long wallBudgetNs, long perturbSeed,
    int jitterPercent, long graceNs, String replay) {

  /** Default grace period for lost-wakeup detection: 2 ms of simulated time. */
  public static final long DEFAULT_GRACE_NS = 2_000_000;

  /** Default bound of the work-duration jitter under exploration. */
  public static final int DEFAULT_JITTER_PERCENT = 20;

  /** Nothing checked, nothing perturbed. */
  public static final RunChecks NONE =
      new RunChecks(false, Long.MAX_VALUE, Long.MAX_VALUE, 0, 0, DEFAULT_GRACE_NS, "");

  public RunChecks {
    checkArgument(eventBudget > 0, "event budget must be positive: %s", eventBudget);
    checkArgument(wallBudgetNs > 0, "wall-clock budget must be positive: %s", wallBudgetNs);
    checkArgument(jitterPercent >= 0 && jitterPercent <= 50, "jitter must be in [0, 50] %%: %s", jitterPercent);
    checkArgument(graceNs > 0, "grace period must be positive: %s", graceNs);
    replay = replay == null ? "" : replay;
  }

  /**
   * The checks tests get by default: invariant mode when the system property
   * {@code lockvisor.checkInvariants} is {@code true} (the build sets it for every test).
   */
  public static RunChecks defaults() {
    return Boolean.getBoolean("lockvisor.checkInvariants") ? NONE.withInvariants(true) : NONE;
  }

  public RunChecks withInvariants(boolean on) {
    return new RunChecks(on, eventBudget, wallBudgetNs, perturbSeed, jitterPercent, graceNs, replay);
  }

  public RunChecks withBudgets(long events, long wallNs) {
    return new RunChecks(invariants, events, wallNs, perturbSeed, jitterPercent, graceNs, replay);
  }

  public RunChecks withPerturbation(long seed, int jitter) {
    return new RunChecks(invariants, eventBudget, wallBudgetNs, seed, jitter, graceNs, replay);
  }

  public RunChecks withReplay(String command) {
    return new RunChecks(invariants, eventBudget, wallBudgetNs, perturbSeed, jitterPercent, graceNs, command);
  }

  /** Whether a guard must observe the run (anything checked or bounded). */
  public boolean guarded() {
    return invariants || eventBudget != Long.MAX_VALUE || wallBudgetNs != Long.MAX_VALUE;
  }
}

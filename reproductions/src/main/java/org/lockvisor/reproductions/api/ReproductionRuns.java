package org.lockvisor.reproductions.api;

import org.lockvisor.reproductions.api.ExperimentRun;

/**
 * Where a reproduction reports the internal runs it performs: how many it plans (for a progress
 * ETA) and each one as it finishes, an {@link ExperimentRun} of its shipped experiment run by the
 * experiment runner. When {@link #capturing()}, each run also carries its files ({@code
 * result.json}, perf report, folded stacks, lock_stat, kvm stat, workload-native JSON) in {@link
 * ExperimentRun#outputs()}, to be written like {@code run --out} writes them. Collecting the files
 * costs run time (a wait recorder on the machine, the CPU-time account walked twice), so a
 * reproduction collects them only when asked. Calls may come from several threads at once (a
 * reproduction may run its simulations in parallel).
 */
public interface ReproductionRuns {

  /** Reports nothing and collects no files. */
  ReproductionRuns NONE = new ReproductionRuns() {};

  /** Whether each run should collect its files (only with an output directory). */
  default boolean capturing() {
    return false;
  }

  /**
   * Bound of each run's {@code trace.json} (Chrome trace events) when the user asked for traces, 0
   * for none.
   */
  default int traceEvents() {
    return 0;
  }

  /** The reproduction will perform {@code runs} internal runs in total (it may call this again). */
  default void planned(int runs) {}

  /**
   * One internal run of a shipped experiment finished (run by the experiment runner); its files
   * are in {@link ExperimentRun#outputs()} when {@link #capturing()}, otherwise {@code null}.
   */
  default void done(ExperimentRun run) {}
}

package org.lockvisor.experiment;

import org.lockvisor.experiment.report.ExperimentRun;
import org.lockvisor.experiment.report.RunCapture;

/**
 * Where a reproduction reports the internal runs it performs: how many it plans (for a progress
 * ETA), each one as it finishes, and, when {@link #capturing()}, each run's {@link RunCapture} so
 * that its files ({@code result.json}, perf report, folded stacks, lock_stat, kvm stat,
 * workload-native JSON) can be written. Capturing costs run time (a wait recorder on the machine,
 * the CPU-time account walked twice), so a reproduction captures only when asked. Calls may come
 * from several threads at once (a reproduction may run its simulations in parallel).
 */
public interface ReproductionRuns {

  /** Reports nothing and captures nothing. */
  ReproductionRuns NONE = new ReproductionRuns() {};

  /** Whether the reproduction should capture each run (only with an output directory). */
  default boolean capturing() {
    return false;
  }

  /**
   * Bound of each captured run's {@code trace.json} (Chrome trace events) when the user asked for
   * traces, 0 for none; a reproduction passes it to {@link RunCapture#trace}.
   */
  default int traceEvents() {
    return 0;
  }

  /** The reproduction will perform {@code runs} internal runs in total (it may call this again). */
  default void planned(int runs) {}

  /**
   * One internal run finished.
   *
   * @param label the run's name, e.g. {@code x86_64-kvm-numjobs2-patched}
   * @param capture its capture when {@link #capturing()}, otherwise {@code null}
   */
  default void done(String label, RunCapture capture) {}

  /**
   * One internal run of a shipped experiment finished (run by the experiment runner); its files
   * are in {@link ExperimentRun#outputs()} when {@link #capturing()}. By default reported like
   * {@link #done(String, RunCapture)} without a capture.
   */
  default void done(ExperimentRun run) {
    done(run.label(), (RunCapture) null);
  }
}

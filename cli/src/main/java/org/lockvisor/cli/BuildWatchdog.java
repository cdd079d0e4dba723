package org.lockvisor.cli;

import java.io.PrintWriter;
import java.util.Locale;
import org.lockvisor.experiment.runner.Runner;

/**
 * {@code --max-wall} while a machine is built: the runner checks the budget between devices and
 * workloads, but one workload's start can build for many seconds. In the {@code lockvisor}
 * process (not when the command line runs inside another program, such as a test), a daemon
 * thread watches the machine being built and, once one build has taken longer than the budget,
 * prints the one line and exits with status 1 (writes are atomic: no half-written file is left).
 */
final class BuildWatchdog {

  private static final long POLL_MS = 50;

  /** Whether this JVM is the lockvisor process (set by {@link Lockvisor#main}). */
  static volatile boolean ownsProcess;

  private BuildWatchdog() {}

  /** Watches {@code runner}'s builds against {@code budgetNs}; does nothing outside the lockvisor process. */
  static void arm(Runner runner, long budgetNs, String option, PrintWriter err) {
    if (!ownsProcess || budgetNs == Long.MAX_VALUE) {
      return;
    }
    Thread t = new Thread(() -> {
      try {
        while (true) {
          Thread.sleep(POLL_MS);
          long since = runner.buildingSince();
          if (since != 0 && System.nanoTime() - since > budgetNs) {
            err.println(String.format(Locale.ROOT, "lockvisor: wall-clock budget (%s) exceeded while building the"
                + " machine (%.1f s); make the experiment smaller or raise the budget", option,
                (System.nanoTime() - since) / 1e9));
            err.flush();
            System.exit(Lockvisor.EXIT_FAILED);
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "lockvisor-build-watchdog");
    t.setDaemon(true);
    t.start();
  }
}

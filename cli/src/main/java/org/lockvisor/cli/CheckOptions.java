package org.lockvisor.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.lockvisor.experiment.UserInputException;
import org.lockvisor.experiment.check.RunChecks;
import org.lockvisor.experiment.model.Durations;
import picocli.CommandLine.Option;

/**
 * The options of trustworthy runs shared by {@code run} and {@code explore}: invariant mode, the
 * runaway budgets and the exploration perturbation, and the replay command they make.
 */
final class CheckOptions {

  @Option(names = "--check-invariants",
      description = "Check mutual exclusion, runqueues, CPUs, time and accounting after every event, and look"
          + " for deadlocks and lost wakeups; a violation fails the run (exit 1) with its replay command.")
  boolean invariants;

  @Option(names = "--max-events", paramLabel = "N",
      description = "Fail a run after N events, naming the busiest event type and thread.")
  Long maxEvents;

  @Option(names = "--max-wall", paramLabel = "DURATION",
      description = "Fail a run after this much wall-clock time, e.g. 30s or 2m.")
  String maxWall;

  @Option(names = "--max-memory", paramLabel = "SIZE",
      description = "Refuse, before building, a machine whose estimated heap exceeds SIZE, e.g. 512m or 2g"
          + " (default and ceiling: three quarters of the JVM's maximum heap).")
  String maxMemory;

  @Option(names = "--perturb", paramLabel = "P", hidden = true,
      description = "Schedule-exploration perturbation seed (what explore's replay commands pass).")
  Long perturb;

  @Option(names = "--jitter", paramLabel = "PERCENT",
      description = "Bound of the random jitter on work durations under a perturbation (default: "
          + RunChecks.DEFAULT_JITTER_PERCENT + ").")
  Integer jitter;

  @Option(names = "--grace", paramLabel = "DURATION",
      description = "How long a sleeper may wait with its condition true and no wakeup in flight before it is"
          + " reported as a lost wakeup (simulated time, default 2ms).")
  String grace;

  /** The checks these options ask for, with {@code replay} as the replay command. */
  RunChecks toRunChecks(boolean forceInvariants, long perturbSeed, String replay) {
    long events = maxEvents == null ? Long.MAX_VALUE : maxEvents;
    if (events <= 0) {
      throw new UserInputException("--max-events must be positive: [" + maxEvents + "]");
    }
    long wall = maxWall == null ? Long.MAX_VALUE : wallNs(maxWall);
    int j = jitter == null ? RunChecks.DEFAULT_JITTER_PERCENT : jitter;
    if (j < 0 || j > 50) {
      throw new UserInputException("--jitter must be in [0, 50] percent: [" + j + "]");
    }
    long graceNs = grace == null ? RunChecks.DEFAULT_GRACE_NS : duration("--grace", grace);
    if (graceNs <= 0) {
      throw new UserInputException("--grace must be positive: [" + grace + "]");
    }
    return new RunChecks(invariants || forceInvariants, events, wall, perturbSeed, j, graceNs, replay);
  }

  /**
   * Applies {@code --max-memory} and {@code --max-wall} to {@code runner} before anything is
   * validated or built: the memory estimate of every machine, and a wall-clock deadline from now
   * that also covers validation and building.
   */
  void limit(org.lockvisor.experiment.runner.Runner runner, java.io.PrintWriter err) {
    limitRuns(runner, err);
    if (maxWall != null) {
      long wall = wallNs(maxWall);
      runner.limitBuilding(System.nanoTime() + wall, "--max-wall " + maxWall.strip());
    } else {
      runner.limitBuilding(Long.MAX_VALUE, "");
    }
  }

  /** {@code --max-memory} and the --max-wall watchdog of each build, for a runner that runs (not validates). */
  void limitRuns(org.lockvisor.experiment.runner.Runner runner, java.io.PrintWriter err) {
    limitMemory(runner, maxMemory, 1);
    if (maxWall != null) {
      BuildWatchdog.arm(runner, wallNs(maxWall), "--max-wall " + maxWall.strip(), err);
    }
  }

  /** After validation: each run's building counts against that run's own --max-wall. */
  static void validated(org.lockvisor.experiment.runner.Runner runner) {
    runner.limitBuilding(Long.MAX_VALUE, "");
  }

  /** {@code --max-memory} split over {@code jobs} machines built at once. */
  static void limitMemory(org.lockvisor.experiment.runner.Runner runner, String maxMemory, int jobs) {
    if (maxMemory != null) {
      long bytes = bytes("--max-memory", maxMemory);
      runner.limitMemory(bytes / jobs, "--max-memory " + maxMemory.strip() + (jobs > 1 ? " / " + jobs + " jobs" : ""));
    } else {
      long max = Runtime.getRuntime().maxMemory();
      if (jobs > 1 && max != Long.MAX_VALUE) {
        runner.limitMemory(max / 4 * 3 / jobs, "three quarters of the JVM heap / " + jobs + " jobs");
      } else {
        runner.limitMemory(0, ""); // the default
      }
    }
  }

  /** {@code 512m}, {@code 2g}, {@code 1048576}: binary units k, m, g, t; at least 1 MiB. */
  static long bytes(String option, String text) {
    String t = text.strip().toLowerCase(java.util.Locale.ROOT);
    long unit = 1;
    if (!t.isEmpty() && "kmgt".indexOf(t.charAt(t.length() - 1)) >= 0) {
      unit = 1L << (10 * ("kmgt".indexOf(t.charAt(t.length() - 1)) + 1));
      t = t.substring(0, t.length() - 1);
    }
    long n;
    try {
      n = Math.multiplyExact(Long.parseLong(t), unit);
    } catch (RuntimeException e) {
      throw new UserInputException(option + ": [" + org.lockvisor.experiment.model.Problem.echo(text)
          + "] is not a size such as 512m, 2g or 1048576");
    }
    if (n < (1 << 20)) {
      throw new UserInputException(option + " must be at least 1m: [" + text + "]");
    }
    return n;
  }

  /** The perturbation seed given with {@code --perturb} (0: none). */
  long perturbSeed() {
    return perturb == null ? 0 : perturb;
  }

  private static long wallNs(String text) {
    long ns = duration("--max-wall", text);
    if (ns <= 0) {
      throw new UserInputException("--max-wall must be positive: [" + text + "]");
    }
    return ns;
  }

  private static long duration(String option, String text) {
    String t = text.strip();
    try {
      if (t.endsWith("m") && !t.endsWith("ms")) {
        return Math.multiplyExact(Long.parseLong(t.substring(0, t.length() - 1)), 60_000_000_000L);
      }
      long ns = Durations.parse(t);
      if (ns < 0) {
        throw new IllegalArgumentException(t);
      }
      return ns;
    } catch (RuntimeException e) {
      throw new UserInputException(option + ": [" + text + "] is not a duration such as 30s, 500ms or 2m");
    }
  }

  /**
   * {@code lockvisor run FILE ...} replaying one run of {@code variant} with these checks;
   * {@code launcher} is {@code lockvisor} with its global options ({@code --plugins}; see {@link
   * ReplayLauncher}).
   */
  String replay(String launcher, Path file, List<String> sets, Long seed, String variant, long perturbSeed) {
    List<String> words = new ArrayList<>();
    words.add(launcher + " run " + quote(file.toString()));
    for (String s : sets) {
      words.add("--set " + quote(s));
    }
    if (seed != null) {
      words.add("--seed " + seed);
    }
    words.add("--variant " + quote(variant));
    words.add("--check-invariants");
    if (perturbSeed != 0) {
      words.add("--perturb " + perturbSeed);
      if (jitter != null) {
        words.add("--jitter " + jitter);
      }
    }
    if (grace != null) {
      words.add("--grace " + quote(grace));
    }
    return String.join(" ", words);
  }

  static String quote(String s) {
    return s.matches("[A-Za-z0-9_./=:,@+-]+") ? s : "'" + s.replace("'", "'\\''") + "'";
  }
}

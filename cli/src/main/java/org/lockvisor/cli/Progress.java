package org.lockvisor.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Progress of a long command ({@code run}, {@code sweep}, {@code reproduce}, {@code explore}) on stderr, never on
 * stdout: when stderr is a terminal, one line that is rewritten in place (a bar with the ETA);
 * otherwise plain lines, one per step, that a log file or CI keeps. Steps of a command that has
 * run for less than {@link #AFTER_S} seconds print nothing, so quick commands stay quiet.
 */
final class Progress {

  /** Steps reported sooner than this after the start print nothing. */
  static final double AFTER_S = 2.0;

  /** System property that overrides {@link #AFTER_S} (seconds; tests set 0). */
  static final String AFTER_PROPERTY = "lockvisor.progress.after-s";

  private static final int BAR = 24;

  private final PrintWriter err;
  private final boolean terminal;
  private final double afterS;
  private final long start = System.nanoTime();
  private int lastWidth;
  private boolean open;

  /** Progress on {@code err}, as a bar when the process's stderr is a terminal. */
  Progress(PrintWriter err) {
    this(err, stderrIsTerminal(), afterS());
  }

  Progress(PrintWriter err, boolean terminal, double afterS) {
    this.err = err;
    this.terminal = terminal;
    this.afterS = afterS;
  }

  /**
   * Whether file descriptor 2 is a terminal: on Linux from {@code /proc/self/fd/2} (so {@code
   * lockvisor ... --format json > out.json} still gets the bar), elsewhere whether the JVM has a
   * console.
   */
  static boolean stderrIsTerminal() {
    try {
      Path fd = Path.of("/proc/self/fd/2");
      if (Files.isSymbolicLink(fd)) {
        String target = Files.readSymbolicLink(fd).toString();
        return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
      }
    } catch (IOException | RuntimeException e) {
      // no /proc: fall back to the console
    }
    return System.console() != null;
  }

  private static double afterS() {
    String v = System.getProperty(AFTER_PROPERTY);
    if (v == null) {
      return AFTER_S;
    }
    try {
      return Math.max(0, Double.parseDouble(v.trim()));
    } catch (NumberFormatException e) {
      return AFTER_S;
    }
  }

  /** Whether progress is a bar rewritten in place (stderr is a terminal). */
  boolean terminal() {
    return terminal;
  }

  /** Seconds since this progress started. */
  double elapsedS() {
    return (System.nanoTime() - start) / 1e9;
  }

  /**
   * Step {@code done} of {@code total} ({@code total} 0 when unknown) is over: {@code what done
   * (done/total), E s elapsed, ETA T s}, after {@link #AFTER_S} seconds only.
   */
  synchronized void step(String what, int done, int total) {
    double elapsed = elapsedS();
    if (elapsed < afterS) {
      return;
    }
    String text = total > 0
        ? String.format(Locale.ROOT, "%s done (%d/%d), %.1f s elapsed, ETA %.1f s", what, done, total, elapsed,
            done == 0 ? 0.0 : elapsed / done * (total - done))
        : String.format(Locale.ROOT, "%s done (%d), %.1f s elapsed", what, done, elapsed);
    if (terminal && total > 0) {
      int filled = (int) Math.round((double) BAR * Math.min(done, total) / total);
      text = "[" + "#".repeat(filled) + "-".repeat(BAR - filled) + "] " + text;
    }
    line(text);
  }

  /** Prints {@code text} as the current progress (rewriting the previous one on a terminal). */
  synchronized void line(String text) {
    if (terminal) {
      err.print("\r" + text + " ".repeat(Math.max(0, lastWidth - text.length())));
      lastWidth = text.length();
      open = true;
    } else {
      err.println(text);
    }
    err.flush();
  }

  /** Ends the progress line on a terminal (the next output starts on a line of its own). */
  synchronized void finish() {
    if (open) {
      err.println();
      err.flush();
      open = false;
      lastWidth = 0;
    }
  }
}

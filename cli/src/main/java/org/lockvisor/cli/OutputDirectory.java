package org.lockvisor.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.lockvisor.experiment.UserInputException;

/**
 * Checks an {@code --out DIR} before any simulation runs, so that a directory that cannot be
 * written is a usage error (one line, exit status 2) rather than a failure after minutes of work.
 * An empty or blank name is refused (an unset {@code $OUTDIR} must not mean the current
 * directory), and so is an existing non-empty directory that lockvisor did not write (it has no
 * {@value #MARKER} file) unless {@code --force} is given: the output of one run never lands
 * silently among files that are not lockvisor's. Replacing an earlier lockvisor output is said
 * on stderr.
 */
final class OutputDirectory {

  /** The file that marks a directory as a lockvisor output (written into every --out directory). */
  static final String MARKER = ".lockvisor-output";

  private OutputDirectory() {}

  /** {@link #prepare(String, Path, boolean, PrintWriter)} refusing a foreign non-empty directory. */
  static void prepare(String option, Path dir) {
    prepare(option, dir, false, null);
  }

  /**
   * Creates {@code dir} (and its parents) if missing, checks that files can be created in it and
   * marks it as a lockvisor output.
   *
   * @param force write into an existing non-empty directory that is not a lockvisor output
   * @param err where to say that an earlier output is being replaced; null: say nothing
   * @throws UserInputException naming the option, the path and the reason
   */
  static void prepare(String option, Path dir, boolean force, PrintWriter err) {
    if (dir == null) {
      return;
    }
    if (dir.toString().isBlank()) {
      throw new UserInputException(option + " [" + dir + "] is empty; give a directory (an unset variable in a script?)");
    }
    if (Files.exists(dir) && !Files.isDirectory(dir)) {
      throw new UserInputException(option + " [" + dir + "] is a file, not a directory; give a directory to write into");
    }
    if (Files.isDirectory(dir) && !isEmpty(dir)) {
      if (Files.exists(dir.resolve(MARKER))) {
        if (err != null) {
          err.println("lockvisor: " + option + " [" + dir + "]: replacing the files of an earlier lockvisor output");
          err.flush();
        }
      } else if (!force) {
        throw new UserInputException(option + " [" + dir + "] is a non-empty directory that is not a lockvisor output"
            + " (no " + MARKER + " file); give a new or empty directory, or add --force to write into it");
      }
    }
    try {
      Files.createDirectories(dir);
    } catch (FileAlreadyExistsException e) {
      throw new UserInputException(option + " [" + dir + "]: [" + e.getFile() + "] is a file, not a directory");
    } catch (IOException | SecurityException e) {
      throw new UserInputException(option + " [" + dir + "] cannot be created (" + reason(e) + "); give a writable directory");
    }
    Path probe = null;
    try {
      probe = Files.createTempFile(dir, ".lockvisor-write-check", ".tmp");
    } catch (IOException | SecurityException e) {
      throw new UserInputException(option + " [" + dir + "] is not writable (" + reason(e) + "); give a writable directory");
    } finally {
      if (probe != null) {
        try {
          Files.deleteIfExists(probe);
        } catch (IOException ignored) {
          // the probe is a hidden empty file; leaving it behind is harmless
        }
      }
    }
    try {
      Files.writeString(dir.resolve(MARKER), "This directory is a lockvisor output (see docs/outputs.md); lockvisor"
          + " writes into it again without --force.\n");
    } catch (IOException e) {
      throw new UserInputException(option + " [" + dir + "] is not writable (" + reason(e) + "); give a writable directory");
    }
  }

  private static boolean isEmpty(Path dir) {
    try (Stream<Path> entries = Files.list(dir)) {
      return entries.findAny().isEmpty();
    } catch (IOException e) {
      return false;
    }
  }

  private static String reason(Exception e) {
    String simple = e.getClass().getSimpleName().replace("Exception", "");
    return e instanceof java.nio.file.AccessDeniedException ? "permission denied" : simple.isEmpty() ? "I/O error" : simple;
  }
}

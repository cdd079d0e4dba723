package org.lockvisor.cli;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.lockvisor.experiment.UserInputException;

/**
 * Checks an {@code --out DIR} before any simulation runs, so that a directory that cannot be
 * written is a usage error (one line, exit status 2) rather than a failure after minutes of work.
 */
final class OutputDirectory {

  private OutputDirectory() {}

  /**
   * Creates {@code dir} (and its parents) if missing and checks that files can be created in it.
   *
   * @throws UserInputException naming the option, the path and the reason
   */
  static void prepare(String option, Path dir) {
    if (dir == null) {
      return;
    }
    if (Files.exists(dir) && !Files.isDirectory(dir)) {
      throw new UserInputException(option + " [" + dir + "] is a file, not a directory; give a directory to write into");
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
  }

  private static String reason(Exception e) {
    String simple = e.getClass().getSimpleName().replace("Exception", "");
    return e instanceof java.nio.file.AccessDeniedException ? "permission denied" : simple.isEmpty() ? "I/O error" : simple;
  }
}

package org.lockvisor.experiment.io;

import static com.google.common.base.Preconditions.checkArgument;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Writes output files so that a reader (or a resumed sweep) sees either the old file or the
 * complete new one, never a torn one: write a temporary file in the same directory, force it to
 * disk, then rename it over the target.
 */
public final class AtomicFiles {

  /** Writes the content of one file to a stream; the stream is closed by {@link AtomicFiles}. */
  @FunctionalInterface
  public interface Writer {
    void writeTo(OutputStream out) throws IOException;
  }

  private AtomicFiles() {}

  public static Path writeString(Path target, String content) throws IOException {
    return write(target, out -> out.write(content.getBytes(StandardCharsets.UTF_8)));
  }

  public static Path writeBytes(Path target, byte[] content) throws IOException {
    return write(target, out -> out.write(content));
  }

  /** Creates missing parent directories, writes via {@code writer}, renames into place. */
  public static Path write(Path target, Writer writer) throws IOException {
    checkArgument(target != null && target.getFileName() != null, "bad output file [%s]", target);
    Path absolute = target.toAbsolutePath();
    Path directory = absolute.getParent();
    Files.createDirectories(directory);
    // Same directory as the target: a rename is only atomic within one file system. Not
    // Files.createTempFile: its files are mode 0600, and the renamed output would be unreadable by
    // anyone else; a file created here gets the usual mode (0666 less the umask), like any tool's.
    Path temporary = null;
    FileChannel channel = null;
    while (channel == null) {
      temporary = directory.resolve("." + absolute.getFileName() + "."
          + Long.toUnsignedString(java.util.concurrent.ThreadLocalRandom.current().nextLong(), 36) + ".tmp");
      try {
        channel = FileChannel.open(temporary, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
      } catch (java.nio.file.FileAlreadyExistsException e) {
        // another writer's temporary file: draw another name
      }
    }
    FileChannel opened = channel;
    try {
      try (opened;
           OutputStream out = Channels.newOutputStream(opened)) {
        writer.writeTo(out);
        out.flush();
        opened.force(true);
      }
      try {
        Files.move(temporary, absolute, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        // Some file systems (a few network mounts) cannot rename atomically; a plain replace is
        // the best they offer and still never leaves a partly written target behind on success.
        Files.move(temporary, absolute, StandardCopyOption.REPLACE_EXISTING);
      }
      return absolute;
    } finally {
      Files.deleteIfExists(temporary);
    }
  }
}

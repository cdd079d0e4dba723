package org.lockvisor.experiment.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A target holds either its old content or the complete new content, and no temporary file is left behind. */
class AtomicFilesTest {

  @TempDir
  Path directory;

  private long filesIn(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.count();
    }
  }

  @Test
  void writeString_missingParents_createdAndWritten() throws IOException {
    Path target = directory.resolve("a/b/result.json");

    AtomicFiles.writeString(target, "{}");

    assertThat(target).hasContent("{}");
    assertThat(filesIn(target.getParent())).isEqualTo(1);
  }

  @Test
  void write_fileGetsTheUsualModeOfANewFile_notTheTempFilesPrivateMode() throws IOException {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        directory.getFileSystem().supportedFileAttributeViews().contains("posix"), "POSIX file modes");
    Path plain = Files.createFile(directory.resolve("plain.txt")); // 0666 less the umask
    Path target = AtomicFiles.writeString(directory.resolve("result.json"), "{}");

    assertThat(Files.getPosixFilePermissions(target)).isEqualTo(Files.getPosixFilePermissions(plain));
  }

  @Test
  void writeBytes_existingTarget_replaced() throws IOException {
    Path target = directory.resolve("result.txt");
    Files.writeString(target, "old");

    AtomicFiles.writeBytes(target, "new".getBytes(StandardCharsets.UTF_8));

    assertThat(target).hasContent("new");
    assertThat(filesIn(directory)).isEqualTo(1);
  }

  @Test
  void write_writerFails_oldContentKeptAndNoTemporaryLeft() throws IOException {
    Path target = directory.resolve("result.txt");
    Files.writeString(target, "old");

    assertThatThrownBy(() -> AtomicFiles.write(target, out -> {
          out.write("partial".getBytes(StandardCharsets.UTF_8));
          throw new IOException("disk full");
        }))
        .isInstanceOf(IOException.class)
        .hasMessage("disk full");

    assertThat(target).hasContent("old");
    assertThat(filesIn(directory)).isEqualTo(1);
  }
}

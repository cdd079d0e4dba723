package org.lockvisor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.lockvisor.cli.CliFixture.Run;

/**
 * Every experiment file shipped in examples/experiments validates against the built-in plugins,
 * except those that name a plugin of the examples module itself (they are checked there).
 */
class ExampleExperimentsTest {

  static final Path DIR = Path.of("../examples/experiments");

  static Stream<Path> examples() throws IOException {
    try (Stream<Path> files = Files.list(DIR)) {
      return files.filter(p -> p.toString().endsWith(".yaml")).filter(ExampleExperimentsTest::builtInOnly)
          .sorted().toList().stream();
    }
  }

  /** Files that use an example plugin (e.g. the deliberately broken worker) need the examples module. */
  private static boolean builtInOnly(Path file) {
    try {
      return !Files.readString(file).contains("type: broken-worker");
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void thereAreExamples() throws IOException {
    assertThat(examples().count()).isGreaterThanOrEqualTo(3);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("examples")
  void exampleValidates(Path file) {
    Run run = CliFixture.run("validate", file.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.err()).isEmpty();
  }
}

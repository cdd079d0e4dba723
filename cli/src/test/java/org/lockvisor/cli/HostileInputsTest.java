package org.lockvisor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.lockvisor.cli.CliFixture.Run;

/**
 * The hostile inputs of issue 24, one file each under {@code hostile-inputs/}: a {@code .yaml}
 * is an experiment given to {@code validate}; an {@code .args} file is a command line, one
 * argument per line ({@code <empty>} for an empty argument, {@code ${RES}} for the directory,
 * {@code ${TMP}} for a fresh temporary directory).
 * Their headers say the exit status ({@code # exit:}), the stderr lines ({@code # lines:}, 1
 * unless said) and text that must appear ({@code # expect-text:} on stderr, {@code # expect-out:}
 * on stdout). Each is answered within 5 s in the test JVM's 1 GiB heap ({@code -Xmx1g}), by
 * lines that start with {@code lockvisor: }, never a stack trace; a refusal (exit 2) creates no
 * {@code --out} directory.
 */
class HostileInputsTest {

  static final Path DIR = Path.of("src/test/resources/hostile-inputs");
  static final long MAX_NANOS = 5_000_000_000L;

  /** Built-in reproductions visible: one input is a what-if of a reproduction. */
  private static final ClassLoader SHIPPED = HostileInputsTest.class.getClassLoader();

  @TempDir
  Path temp;

  static Stream<Path> inputs() throws IOException {
    try (Stream<Path> files = Files.list(DIR)) {
      return files.filter(p -> p.toString().endsWith(".yaml") || p.toString().endsWith(".args")).sorted()
          .toList().stream();
    }
  }

  @Test
  void suite_holdsEveryInputOfTheIssue() throws IOException {
    assertThat(inputs().count()).isGreaterThanOrEqualTo(20);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("inputs")
  void hostileInput_answeredByItsLinesAndExit_within5s_noStackTrace(Path file) throws IOException {
    int exit = -1;
    int lines = 1;
    List<String> errTexts = new ArrayList<>();
    List<String> outTexts = new ArrayList<>();
    List<String> args = new ArrayList<>();
    boolean yaml = file.toString().endsWith(".yaml");
    for (String line : Files.readAllLines(file)) {
      if (line.startsWith("# exit: ")) {
        exit = Integer.parseInt(line.substring(8).strip());
      } else if (line.startsWith("# lines: ")) {
        lines = Integer.parseInt(line.substring(9).strip());
      } else if (line.startsWith("# expect-text: ")) {
        errTexts.add(line.substring(15).strip());
      } else if (line.startsWith("# expect-out: ")) {
        outTexts.add(line.substring(14).strip());
      } else if (!yaml && !line.startsWith("#") && !line.isEmpty()) {
        args.add(line.equals("<empty>") ? "" : line.replace("${RES}", DIR.toString())
            .replace("${TMP}", temp.toString()));
      }
    }
    if (yaml) {
      args = List.of("validate", file.toString());
    }
    assertThat(exit).as("%s says its exit status", file).isNotNegative();

    long start = System.nanoTime();
    Run run = CliFixture.run(SHIPPED, args.toArray(String[]::new));
    long nanos = System.nanoTime() - start;

    String context = file + "\nexit " + run.exitCode() + "\nstderr: " + run.err() + "\nstdout: " + run.out();
    assertThat(run.exitCode()).as(context).isEqualTo(exit);
    assertThat(run.err()).as(context).doesNotContain("\tat ", "Exception", "internal error")
        .doesNotContain("org.yaml.", "com.fasterxml.", "java.lang.", "java.nio.");
    assertThat(run.err().replace("\n", "").replace("\r", "")).as("%s: no raw control character on stderr", file)
        .doesNotContainPattern("[\\x00-\\x1f\\x7f-\\x9f]");
    errTexts.forEach(text -> assertThat(run.err()).as(context).contains(text));
    outTexts.forEach(text -> assertThat(run.out()).as(context).contains(text));
    if (exit != 0) {
      assertThat(run.errLines()).as(context).hasSize(lines)
          .allSatisfy(line -> assertThat(line).startsWith("lockvisor: ").hasSizeLessThan(1_200));
    }
    assertThat(nanos).as("%s answered within 5 s", file).isLessThan(MAX_NANOS);
    if (exit == 2) {
      for (int i = 0; i + 1 < args.size(); i++) {
        if (args.get(i).equals("--out") && args.get(i + 1).startsWith(temp.toString())) {
          assertThat(Path.of(args.get(i + 1))).as("%s: a refusal creates no --out", file).doesNotExist();
        }
      }
    }
  }

  @Test
  void stackOverflow_exit1OneLineWithAdvice() {
    Run run = CliFixture.run(CliFixture.withReproductions(temp, FakeReproductions.OverflowsTheStack.class),
        "reproduce", "fake-deep");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.errLines()).singleElement().asString()
        .startsWith("lockvisor: stack overflow in [lockvisor reproduce]").contains("--debug");
  }

  @Test
  void outOfMemory_exit1OneLineWithAdvice() {
    Run run = CliFixture.run(CliFixture.withReproductions(temp, FakeReproductions.RunsOutOfMemory.class),
        "reproduce", "fake-oom");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.errLines()).singleElement().asString()
        .startsWith("lockvisor: out of memory in [lockvisor reproduce]").contains("--max-memory", "-Xmx");
  }

  @Test
  void outIntoAForeignDirectory_refusedUnlessForce_andAnEarlierOutputIsReplacedAloud() throws IOException {
    Path foreign = Files.createDirectories(temp.resolve("home"));
    Files.writeString(foreign.resolve("result.json"), "someone else's");
    String example = "../examples/experiments/quick-locks.yaml";

    Run refused = CliFixture.run("run", example, "--variant", "base", "--set", "duration=200us", "--out",
        foreign.toString());
    Run forced = CliFixture.run("run", example, "--variant", "base", "--set", "duration=200us", "--out",
        foreign.toString(), "--force");
    Run again = CliFixture.run("run", example, "--variant", "base", "--set", "duration=200us", "--out",
        foreign.toString());

    assertThat(refused.exitCode()).isEqualTo(2);
    assertThat(refused.errLines()).singleElement().asString().contains("not a lockvisor output", "--force");
    assertThat(forced.exitCode()).as(forced.err()).isZero();
    assertThat(foreign.resolve(OutputDirectory.MARKER)).exists();
    assertThat(again.exitCode()).as(again.err()).isZero();
    assertThat(again.err()).contains("replacing the files of an earlier lockvisor output");
  }

  @Test
  void replayLauncher_namesThePluginJars_orPlainLockvisor() {
    assertThat(ReplayLauncher.launcher(List.of())).isEqualTo("lockvisor");
    assertThat(ReplayLauncher.launcher(List.of(Path.of("/p/a.jar"), Path.of("/p/b b.jar"))))
        .isEqualTo("lockvisor --plugins '/p/a.jar:/p/b b.jar'");
    assertThat(ReplayLauncher.isBuiltIn(org.lockvisor.cli.Lockvisor.class)).isTrue();
    assertThat(ReplayLauncher.isBuiltIn(String.class)).isFalse();
  }
}

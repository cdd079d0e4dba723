package org.lockvisor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@value #CASES} hostile mutants of the example experiments ({@link ExperimentMutator} with the
 * inputs of issue 24: sizes at the top of their ranges, second documents, aliases, deep nesting,
 * control characters) through {@code validate} in one JVM: each is valid (exit 0) or refused as
 * bad input (exit 2, every line {@code lockvisor: ...}, at most 51 lines of at most ~1,000
 * characters), with zero stack traces and no internal error.
 */
class ValidateFuzzTest {
  static final int CASES = 500;
  static final long SEED = 24L;

  @TempDir
  Path temp;

  @Test
  @Timeout(value = 300, unit = TimeUnit.SECONDS)
  void hostileMutants_validOrExit2_zeroStackTraces() throws IOException {
    ExperimentMutator mutator = new ExperimentMutator(ExperimentMutator.exampleSeeds(), SEED, true);
    CommandLine cli = Lockvisor.commandLine(CliFixture.WITHOUT_BUILT_IN_REPRODUCTIONS);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    int valid = 0;
    int refused = 0;
    for (int i = 0; i < CASES; i++) {
      ExperimentMutator.Mutant mutant = mutator.next();
      Path file = temp.resolve("case-" + i + ".yaml");
      Files.writeString(file, mutant.text(), StandardCharsets.UTF_8);
      out.getBuffer().setLength(0);
      err.getBuffer().setLength(0);
      int exit = cli.execute("validate", file.toString());
      CliFixture.Run r = new CliFixture.Run(exit, out.toString(), err.toString());
      String context = "case " + i + " (seed " + SEED + ", from " + mutant.from().getFileName() + "):\n"
          + (mutant.text().length() > 4000 ? mutant.text().substring(0, 4000) + "..." : mutant.text())
          + "\nexit " + r.exitCode() + "\n" + r.err();
      assertThat(r.err()).as(context).doesNotContain("\tat ", "Exception", "Error:", "internal error")
          .doesNotContain("org.yaml.", "com.fasterxml.", "java.lang.", "java.nio."); // no library internals
      assertThat(r.exitCode()).as(context).isIn(0, 2);
      if (r.exitCode() == 0) {
        valid++;
      } else {
        refused++;
        assertThat(r.errLines()).as(context).isNotEmpty().hasSizeLessThanOrEqualTo(Lockvisor.MAX_PROBLEM_LINES + 1)
            .allSatisfy(line -> assertThat(line).startsWith("lockvisor: ").hasSizeLessThan(1_200));
      }
    }
    System.out.printf("validate fuzz: %d hostile mutants: %d valid, %d refused with exit 2%n", CASES, valid, refused);
    assertThat(valid).as("some mutants are still valid").isPositive();
    assertThat(refused).as("some mutants are refused").isPositive();
  }
}

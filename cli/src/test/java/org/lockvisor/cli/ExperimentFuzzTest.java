package org.lockvisor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Input robustness: {@value #CASES} seeded mutations of the example experiments ({@link
 * ExperimentMutator}: values replaced by values of other types, out of range or malformed; keys
 * deleted, renamed or added; lists emptied or duplicated; the text truncated or corrupted). Each must run (exit 0), be rejected
 * as bad input (exit 2, one line per problem, no stack trace), or stop at its runaway budget
 * (exit 1 with the budget message) — never an internal error, a stack trace or a hang.
 */
class ExperimentFuzzTest {
  static final int CASES = 1_000;
  static final long SEED = 20_261_130L;

  @TempDir
  Path temp;

  @Test
  @Timeout(value = 300, unit = TimeUnit.SECONDS)
  void mutatedExamples_runOrExit2_neverInternalErrorOrHang() throws IOException {
    List<Path> seeds = ExperimentMutator.exampleSeeds();
    assertThat(seeds).hasSizeGreaterThanOrEqualTo(4);
    ExperimentMutator mutator = new ExperimentMutator(seeds, SEED, false);
    // One command line for all cases: plugins are discovered once (picocli resets the options).
    CommandLine cli = Lockvisor.commandLine(CliFixture.WITHOUT_BUILT_IN_REPRODUCTIONS);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    int ran = 0;
    int rejected = 0;
    int budget = 0;
    for (int i = 0; i < CASES; i++) {
      ExperimentMutator.Mutant mutant = mutator.next();
      String text = mutant.text();
      Path file = temp.resolve("case-" + i + ".yaml");
      Files.writeString(file, text, StandardCharsets.UTF_8);
      out.getBuffer().setLength(0);
      err.getBuffer().setLength(0);
      int exit = cli.execute("run", file.toString(), "--max-events", "3000", "--max-wall", "5s");
      CliFixture.Run r = new CliFixture.Run(exit, out.toString(), err.toString());
      String context = "case " + i + " (seed " + SEED + ", from " + mutant.from().getFileName() + "):\n" + text
          + "\nexit " + r.exitCode() + "\n" + r.err();
      assertThat(r.err()).as(context).doesNotContain("internal error", "\tat ", "Exception:");
      switch (r.exitCode()) {
        case 0 -> ran++;
        case 2 -> {
          rejected++;
          assertThat(r.errLines()).as(context).isNotEmpty().allSatisfy(line -> assertThat(line).startsWith("lockvisor: "));
        }
        case 1 -> {
          budget++;
          assertThat(r.errLines()).as(context).singleElement().asString().containsPattern("budget .*exceeded");
        }
        default -> throw new AssertionError("unexpected exit " + r.exitCode() + " for " + context);
      }
    }
    System.out.printf("fuzz: %d cases: %d ran, %d rejected with exit 2, %d stopped by a budget%n", CASES, ran,
        rejected, budget);
    assertThat(ran).as("some mutants still run").isPositive();
    assertThat(rejected).as("some mutants are rejected").isPositive();
  }
}

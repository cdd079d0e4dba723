package org.lockvisor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * {@code run --check-invariants}, the runaway budgets and {@code explore}: clean runs pass, an
 * exceeded budget fails with one line naming the busiest event type and handler, bad options
 * exit 2.
 */
class TrustCommandsTest {
  static final Path QUICK_LOCKS = Path.of("../examples/experiments/quick-locks.yaml");

  @Test
  void runWithInvariants_cleanRun_exit0_sameFingerprintAsWithout() {
    CliFixture.Run checked = CliFixture.run("run", ExperimentCommandsTest.EXAMPLE.toString(), "--set",
        "duration=3ms", "--variant", "ticket", "--check-invariants");
    CliFixture.Run plain = CliFixture.run("run", ExperimentCommandsTest.EXAMPLE.toString(), "--set",
        "duration=3ms", "--variant", "ticket");

    assertThat(checked.exitCode()).as(checked.err()).isZero();
    assertThat(fingerprint(checked.out())).isEqualTo(fingerprint(plain.out())).isNotEmpty();
  }

  private static String fingerprint(String out) {
    int i = out.indexOf("fingerprint ");
    return i < 0 ? "" : out.substring(i + 12, out.indexOf(',', i));
  }

  @Test
  void eventBudget_exceeded_exit1_oneLine_namesBusiestEventTypeAndHandler() {
    CliFixture.Run r = CliFixture.run("run", ExperimentCommandsTest.EXAMPLE.toString(), "--variant", "base",
        "--max-events", "2000");

    assertThat(r.exitCode()).isEqualTo(1);
    assertThat(r.errLines()).singleElement().asString()
        .contains("event budget of 2000 events exceeded at t=")
        .containsPattern("busiest over the next \\d+ events: event type \\[\\w+ kind \\d+\\] \\(\\d+ %\\), handler \\[")
        .contains("replay: lockvisor run");
  }

  @Test
  void wallBudget_exceeded_exit1() {
    CliFixture.Run r = CliFixture.run("run", ExperimentCommandsTest.EXAMPLE.toString(), "--variant", "base",
        "--set", "duration=2s", "--max-wall", "1ms");

    assertThat(r.exitCode()).isEqualTo(1);
    // 1 ms runs out while the machine is still being built (validation builds it first)
    assertThat(r.errLines()).singleElement().asString()
        .contains("wall-clock budget (--max-wall 1ms) exceeded while building the machine");
  }

  @Test
  void badCheckOptions_exit2() {
    assertThat(CliFixture.run("run", ExperimentCommandsTest.EXAMPLE.toString(), "--max-events", "0").exitCode())
        .isEqualTo(2);
    assertThat(CliFixture.run("run", ExperimentCommandsTest.EXAMPLE.toString(), "--max-wall", "soon").errLines())
        .singleElement().asString().contains("--max-wall: [soon] is not a duration");
    assertThat(CliFixture.run("explore", QUICK_LOCKS.toString(), "--runs", "0").exitCode()).isEqualTo(2);
    assertThat(CliFixture.run("explore", QUICK_LOCKS.toString(), "--runs", "1", "--jitter", "90").exitCode())
        .isEqualTo(2);
  }

  @Test
  void explore_builtInLocks_noViolation() {
    CliFixture.Run r = CliFixture.run("explore", QUICK_LOCKS.toString(), "--runs", "2", "--seed", "3");

    assertThat(r.exitCode()).as(r.out() + r.err()).isZero();
    assertThat(r.out()).contains("explore: no violation in 18 runs (2 per variant x 9 variant(s)");
  }
}

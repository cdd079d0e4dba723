package org.lockvisor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lockvisor.cli.CliFixture.Run;

/**
 * {@code run} and {@code sweep} take {@code --set cost.<profile>.<COST_KEY>=<number>} as
 * {@code reproduce} does: the cost changes the run, the output says it is a what-if, and a cost of
 * a profile the experiment does not run on, an unknown key or a bad value is one line and exit 2.
 */
class RunCostWhatIfTest {

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final String FILE = "../examples/experiments/quick-locks.yaml";

  @TempDir
  Path temp;

  private static void assertOneLineUsageError(Run run, String... fragments) {
    assertThat(run.exitCode()).as("exit code; stderr: %s", run.err()).isEqualTo(2);
    assertThat(run.errLines()).hasSize(1);
    assertThat(run.err()).startsWith("lockvisor: ").contains(fragments).doesNotContain("\tat ", "Exception");
  }

  @Test
  void run_costSet_changesTheRunAndIsLabelled() throws IOException {
    Run base = CliFixture.run("run", FILE, "--variant", "base", "--format", "json");
    Run whatIf = CliFixture.run("run", FILE, "--variant", "base", "--format", "json",
        "--set", "cost.x86_64-kvm.CACHELINE_XFER_SOCKET=400");

    assertThat(whatIf.exitCode()).as(whatIf.err()).isZero();
    JsonNode a = MAPPER.readTree(base.out());
    JsonNode b = MAPPER.readTree(whatIf.out());
    assertThat(b.get("runs").get(0).get("fingerprint").asText())
        .isNotEqualTo(a.get("runs").get(0).get("fingerprint").asText());
    assertThat(b.get("whatIf").get("costs").get("x86_64-kvm").get("CACHELINE_XFER_SOCKET").asInt()).isEqualTo(400);
    assertThat(b.get("provenance").get("config_sha256").asText())
        .isNotEqualTo(a.get("provenance").get("config_sha256").asText());
  }

  @Test
  void run_costSet_textOutputLabelled() {
    Run run = CliFixture.run("run", FILE, "--variant", "base", "--set", "cost.x86_64-kvm.TTWU_FULL=3000");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).startsWith("WHAT-IF — costs changed: cost.x86_64-kvm.TTWU_FULL=3000");
  }

  @Test
  void run_costOfAProfileNotRun_oneLineExit2() {
    assertOneLineUsageError(CliFixture.run("run", FILE, "--set", "cost.s390x-kvm.TTWU_FULL=3000"),
        "--set [cost.s390x-kvm.TTWU_FULL=3000]: no machine of this experiment", "[s390x-kvm]");
  }

  @Test
  void run_unknownCostKey_oneLineExit2WithSuggestion() {
    assertOneLineUsageError(CliFixture.run("run", FILE, "--set", "cost.x86_64-kvm.TTWU_FUL=3000"),
        "unknown x86_64-kvm cost key [TTWU_FUL]", "did you mean [TTWU_FULL]");
  }

  @Test
  void run_badCostValue_oneLineExit2() {
    assertOneLineUsageError(CliFixture.run("run", FILE, "--set", "cost.x86_64-kvm.TTWU_FULL=-5"),
        "bad value [-5] for cost [TTWU_FULL]");
  }

  @Test
  void sweep_costWithResume_oneLineExit2() {
    assertOneLineUsageError(CliFixture.run("sweep", "../examples/experiments/locktorture-sweep.yaml", "--out",
        temp.resolve("out").toString(), "--resume", "--set", "cost.x86_64-kvm.TTWU_FULL=3000"),
        "--resume with cost what-ifs");
  }
}

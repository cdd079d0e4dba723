package org.lockvisor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lockvisor.cli.CliFixture.Run;

/**
 * {@code lockvisor reproduce vhost-wakeup} and {@code lockvisor run} of its exported experiment
 * file with the same settings process the same events: both through the command line with the
 * real class path (the built-in reproduction), at a small scale (10 ms per run). The reproduction's
 * run of the 8-stream row's patched variant and {@code run FILE --set <the row's streams> --variant
 * patched} have equal event fingerprints and event counts in their {@code result.json}, and equal
 * config hashes (the same experiment tree).
 */
class VhostReproduceEqualsRunTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ClassLoader REAL = VhostReproduceEqualsRunTest.class.getClassLoader();
  private static final List<String> SMALL = List.of("--set", "warmup=5ms", "--set", "duration=5ms");

  @TempDir
  static Path dir;
  static Run reproduce;

  @BeforeAll
  static void reproduceSmall() {
    List<String> args = new ArrayList<>(List.of("reproduce", "vhost-wakeup", "--out", dir.resolve("r").toString()));
    args.addAll(SMALL);
    reproduce = CliFixture.run(REAL, args.toArray(String[]::new));
  }

  private static JsonNode read(Path file) throws IOException {
    assertThat(file).exists();
    return JSON.readTree(Files.readString(file));
  }

  @Test
  void reproduceAndRunOfTheExportedFile_sameEvents() throws IOException {
    assertThat(reproduce.exitCode()).as(reproduce.err()).isIn(0, 1); // 10 ms runs: the verdict may miss
    Run export = CliFixture.run(REAL, "reproduce", "vhost-wakeup", "--export-experiments",
        dir.resolve("exp").toString());
    assertThat(export.exitCode()).as(export.err()).isZero();
    assertThat(export.out()).contains("r1-vhost-wakeup.yaml");

    List<String> args = new ArrayList<>(List.of("run", dir.resolve("exp/r1-vhost-wakeup.yaml").toString(),
        "--variant", "patched", "--out", dir.resolve("run").toString(), "--set",
        "vms[0].workloads[0].options.streams=8"));
    args.addAll(SMALL);
    Run run = CliFixture.run(REAL, args.toArray(String[]::new));
    assertThat(run.exitCode()).as(run.err()).isZero();

    JsonNode fromReproduce = read(dir.resolve("r/vhost-wakeup/runs/x86_64-kvm-streams8-patched/result.json"));
    JsonNode fromRun = read(dir.resolve("run/result.json"));
    assertThat(fromRun.at("/runs/0/fingerprint").asText()).isNotEmpty()
        .isEqualTo(fromReproduce.at("/runs/0/fingerprint").asText());
    assertThat(fromRun.at("/runs/0/events").asLong()).isPositive()
        .isEqualTo(fromReproduce.at("/runs/0/events").asLong());
    assertThat(fromRun.at("/provenance/config_sha256").asText())
        .isEqualTo(fromReproduce.at("/provenance/config_sha256").asText());
  }

  @Test
  void exportWithSettings_runsTheSameEventsAsTheReproductionsPoint() throws IOException {
    List<String> args = new ArrayList<>(List.of("reproduce", "vhost-wakeup", "--export-experiments",
        dir.resolve("exp-set").toString(), "--set", "vms[0].workloads[0].options.streams=64"));
    args.addAll(SMALL);
    Run export = CliFixture.run(REAL, args.toArray(String[]::new));
    assertThat(export.exitCode()).as(export.err()).isZero();

    Run run = CliFixture.run(REAL, "run", dir.resolve("exp-set/r1-vhost-wakeup.yaml").toString(), "--variant", "llist",
        "--format", "json");
    assertThat(run.exitCode()).as(run.err()).isZero();

    JsonNode fromReproduce = read(dir.resolve("r/vhost-wakeup/runs/x86_64-kvm-streams64-llist/result.json"));
    assertThat(JSON.readTree(run.out()).at("/runs/0/fingerprint").asText())
        .isEqualTo(fromReproduce.at("/runs/0/fingerprint").asText());
  }

  @Test
  void reproduceRunDirectory_holdsTheFilesOfRunOut() {
    Path runDir = dir.resolve("r/vhost-wakeup/runs/x86_64-kvm-streams8-patched");
    assertThat(runDir.resolve("lock_stat.txt")).exists();
    assertThat(runDir.resolve("perf-report.txt")).exists();
    assertThat(runDir.resolve("oncpu-diff.folded")).exists(); // against the row's baseline run
    assertThat(runDir.resolve("report.html")).exists();
  }

  @Test
  void exportExperiments_costSetting_refusedInOneLine() {
    Run r = CliFixture.run(REAL, "reproduce", "vhost-wakeup", "--export-experiments", dir.resolve("x").toString(),
        "--set", "cost.x86_64-kvm.TTWU_FULL=1500");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.err()).contains("cost override is not part of an experiment file");
    assertThat(dir.resolve("x")).doesNotExist();
  }

  @Test
  void exportExperiments_withAnOptionOfARun_refused() {
    Run r = CliFixture.run(REAL, "reproduce", "vhost-wakeup", "--export-experiments", dir.resolve("y").toString(),
        "--quick");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.errLines()).hasSize(1);
    assertThat(dir.resolve("y")).doesNotExist();
  }

  @Test
  void exportExperiments_intoAFile_refused() throws IOException {
    Path file = Files.writeString(dir.resolve("a-file"), "x");
    Run r = CliFixture.run(REAL, "reproduce", "vhost-wakeup", "--export-experiments", file.toString());
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("is a file, not a directory");
  }

  @Test
  void reproduceSet_unknownPath_refusedBeforeAnythingRuns() {
    Run r = CliFixture.run(REAL, "reproduce", "vhost-wakeup", "--set", "vms[0].vcpu=2");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.err()).contains("--set [vms[0].vcpu=2]").contains("r1-vhost-wakeup.yaml");
  }

  @Test
  void reproduceSet_thePathEachRowSets_refused() {
    Run r = CliFixture.run(REAL, "reproduce", "vhost-wakeup", "--set", "vms[0].workloads[0].options.streams=2");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.err()).contains("sets [vms[0].workloads[0].options.streams] itself");
  }

  @Test
  void reproduceSet_misspeltParameter_didYouMean() {
    Run r = CliFixture.run(REAL, "reproduce", "vhost-wakeup", "--set", "mtuu=1500");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("did you mean [mtu]");
  }
}

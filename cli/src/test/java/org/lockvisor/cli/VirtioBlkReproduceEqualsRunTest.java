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
 * {@code lockvisor reproduce virtio-blk-notify} and {@code lockvisor run} of its exported
 * experiment files with the same settings process the same events: both through the command line
 * with the real class path (the built-in reproduction), at a small scale (1 ms warm-up, 2 ms
 * measured, a backend depth the files do not ship). The reproduction's x86 numjobs=4 patched run
 * equals {@code run virtio-blk-notify-x86.yaml --set <the row's numjobs> --variant patched}, and its
 * arm64 baseline equals {@code run virtio-blk-notify-arm64.yaml}: equal event fingerprints and
 * counts in their {@code result.json}, and every figure of the run equal. (Their config hashes
 * differ by design: the reproduction's run is a what-if, and a what-if's provenance hashes its
 * settings too.)
 */
class VirtioBlkReproduceEqualsRunTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ClassLoader REAL = VirtioBlkReproduceEqualsRunTest.class.getClassLoader();
  private static final List<String> SMALL = List.of("--set", "warmup=1ms", "--set", "duration=2ms", "--set",
      "vms[0].devices[0].options.backend-depth=16");

  @TempDir
  static Path dir;
  static Run reproduce;

  @BeforeAll
  static void reproduceSmall() {
    List<String> args = new ArrayList<>(List.of("reproduce", "virtio-blk-notify", "--quick", "--out",
        dir.resolve("r").toString()));
    args.addAll(SMALL);
    reproduce = CliFixture.run(REAL, args.toArray(String[]::new));
    Run export = CliFixture.run(REAL, "reproduce", "virtio-blk-notify", "--export-experiments",
        dir.resolve("exp").toString());
    assertThat(export.exitCode()).as(export.err()).isZero();
    assertThat(export.out()).contains("virtio-blk-notify-arm64.yaml", "virtio-blk-notify-x86.yaml");
  }

  private static JsonNode read(Path file) throws IOException {
    assertThat(file).exists();
    return JSON.readTree(Files.readString(file));
  }

  private static JsonNode run(String file, String variant, String out, String... sets) throws IOException {
    List<String> args = new ArrayList<>(List.of("run", dir.resolve("exp").resolve(file).toString(), "--variant",
        variant, "--out", dir.resolve(out).toString()));
    args.addAll(SMALL);
    for (String s : sets) {
      args.add("--set");
      args.add(s);
    }
    Run run = CliFixture.run(REAL, args.toArray(String[]::new));
    assertThat(run.exitCode()).as(run.err()).isZero();
    return read(dir.resolve(out).resolve("result.json"));
  }

  private static void assertSameRun(JsonNode fromRun, String label) throws IOException {
    JsonNode fromReproduce = read(dir.resolve("r/virtio-blk-notify/runs").resolve(label).resolve("result.json"));
    assertThat(fromRun.at("/runs/0/fingerprint").asText()).as(label).isNotEmpty()
        .isEqualTo(fromReproduce.at("/runs/0/fingerprint").asText());
    assertThat(fromRun.at("/runs/0/events").asLong()).as(label).isPositive()
        .isEqualTo(fromReproduce.at("/runs/0/events").asLong());
    // every figure of the run (workload, device, lock_stat, scheduling) apart from the wall clock
    assertThat(withoutWallClock(fromRun.at("/runs/0"))).as(label).isEqualTo(withoutWallClock(fromReproduce.at("/runs/0")));
  }

  private static JsonNode withoutWallClock(JsonNode run) {
    com.fasterxml.jackson.databind.node.ObjectNode copy = run.deepCopy();
    copy.remove(List.of("wall_ns", "events_per_s"));
    return copy;
  }

  @Test
  void x86Row_reproduceAndRunOfTheExportedFile_sameEvents() throws IOException {
    assertThat(reproduce.exitCode()).as(reproduce.err()).isIn(0, 1); // 2 ms runs: the verdict may miss
    assertSameRun(run("virtio-blk-notify-x86.yaml", "patched", "x86", "vms[0].workloads[0].options.numjobs=4"),
        "x86_64-kvm-numjobs4-patched");
  }

  @Test
  void arm64Row_reproduceAndRunOfTheExportedFile_sameEvents() throws IOException {
    assertThat(reproduce.exitCode()).as(reproduce.err()).isIn(0, 1);
    assertSameRun(run("virtio-blk-notify-arm64.yaml", "base", "arm"), "arm64-kvm-numjobs4-baseline");
  }

  @Test
  void reproduceSet_pathThatNoFileCanHold_refusedBeforeAnythingRuns() {
    // x-data-plane needs the ioeventfd notify path: the arm64 file refuses it, in one line, exit 2
    Run r = CliFixture.run(REAL, "reproduce", "virtio-blk-notify", "--quick", "--set",
        "vms[0].devices[0].options.vmm=qemu-2.0-dataplane");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.err()).contains("virtio-blk-notify-arm64.yaml");
  }

  @Test
  void reproduceSet_theRowsNumjobs_refused() {
    Run r = CliFixture.run(REAL, "reproduce", "virtio-blk-notify", "--set", "vms[0].workloads[0].options.numjobs=1");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.err()).contains("sets [vms[0].workloads[0].options.numjobs] itself");
  }

  @Test
  void reproduceSet_misspeltParameter_didYouMean() {
    Run r = CliFixture.run(REAL, "reproduce", "virtio-blk-notify", "--set", "backend-service=10");
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.err()).contains("did you mean [backend-service-us]");
  }
}

package org.lockvisor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lockvisor.cli.CliFixture.Run;

/**
 * Parameters bound to one shipped file or to several paths ({@code ReproductionParameter.at(file,
 * path)}) are written by {@code reproduce NAME --export-experiments DIR --set P=V} into their file
 * only, and the exported file run by {@code lockvisor run} processes the same events as the
 * reproduction's run with the same {@code --set}: R2's {@code x86-vmm} (the x86 file's device
 * model) and R3's {@code groups} (the PowerVM file's {@code -g} and both files' run limit). A bad
 * value, and a parameter the reproduction still applies itself, are refused in one line, exit 2,
 * before anything is written.
 */
class FileBoundParameterExportTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ClassLoader REAL = FileBoundParameterExportTest.class.getClassLoader();
  private static final List<String> SMALL = List.of("--set", "warmup=1ms", "--set", "duration=2ms", "--set",
      "vms[0].devices[0].options.backend-depth=16");
  private static final String VMM = "x86-vmm=qemu-2.0-main-loop";

  @TempDir
  Path dir;

  private static Run cli(List<String> args) {
    return CliFixture.run(REAL, args.toArray(String[]::new));
  }

  @Test
  void x86Vmm_exportedFileRun_sameEventsAsReproduce() throws IOException {
    List<String> reproduce = new ArrayList<>(List.of("reproduce", "virtio-blk-notify", "--quick", "--out",
        dir.resolve("r").toString(), "--set", VMM));
    reproduce.addAll(SMALL);
    Run r = cli(reproduce);
    assertThat(r.exitCode()).as(r.err()).isIn(0, 1); // 2 ms runs: the verdict may miss
    Run export = cli(List.of("reproduce", "virtio-blk-notify", "--export-experiments", dir.resolve("exp").toString(),
        "--set", VMM));
    assertThat(export.exitCode()).as(export.err()).isZero();
    String x86 = Files.readString(dir.resolve("exp/virtio-blk-notify-x86.yaml"));
    assertThat(x86).startsWith("# virtio-blk-notify-x86.yaml of reproduction virtio-blk-notify, exported with"
        + " --set vms[0].devices[0].options.vmm=qemu-2.0-main-loop").contains("vmm: qemu-2.0-main-loop");
    // the arm64 file is not the x86 parameter's: exported as shipped, comments and all
    try (var shipped = REAL.getResourceAsStream(
        "org/lockvisor/reproductions/experiments/virtio-blk-notify-arm64.yaml")) {
      assertThat(Files.readString(dir.resolve("exp/virtio-blk-notify-arm64.yaml")))
          .isEqualTo(new String(shipped.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
    }

    List<String> run = new ArrayList<>(List.of("run", dir.resolve("exp/virtio-blk-notify-x86.yaml").toString(),
        "--variant", "patched", "--out", dir.resolve("x86").toString(), "--set",
        "vms[0].workloads[0].options.numjobs=4"));
    run.addAll(SMALL);
    Run x = cli(run);
    assertThat(x.exitCode()).as(x.err()).isZero();
    JsonNode fromRun = JSON.readTree(Files.readString(dir.resolve("x86/result.json")));
    JsonNode fromReproduce = JSON.readTree(Files.readString(
        dir.resolve("r/virtio-blk-notify/runs/x86_64-kvm-numjobs4-patched/result.json")));
    assertThat(fromRun.at("/runs/0/fingerprint").asText()).isNotEmpty()
        .isEqualTo(fromReproduce.at("/runs/0/fingerprint").asText());
    assertThat(fromRun.at("/runs/0/events").asLong()).isPositive()
        .isEqualTo(fromReproduce.at("/runs/0/events").asLong());
  }

  @Test
  void groups_exportedIntoEachFileItsTargets() throws IOException {
    Run export = cli(List.of("reproduce", "vcpu-preempted", "--export-experiments", dir.resolve("exp").toString(),
        "--set", "groups=12"));
    assertThat(export.exitCode()).as(export.err()).isZero();
    String powervm = Files.readString(dir.resolve("exp/vcpu-preempted-powervm.yaml"));
    String kvm = Files.readString(dir.resolve("exp/vcpu-preempted-kvm.yaml"));
    assertThat(powervm.lines().findFirst().orElseThrow())
        .contains("--set vms[0].workloads[0].options.groups=12", "--set max-duration=600s");
    assertThat(kvm.lines().findFirst().orElseThrow()).contains("--set max-duration=600s")
        .doesNotContain("groups=12");
    assertThat(powervm).contains("groups: 12");
  }

  @Test
  void exportSet_badValueOfFileBoundParameter_refusedInOneLine() {
    Path out = dir.resolve("exp");
    Run r = cli(List.of("reproduce", "virtio-blk-notify", "--export-experiments", out.toString(), "--set",
        "x86-vmm=qemu-9"));
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.err()).contains("x86-vmm=qemu-9", "qemu-2.0-dataplane");
    assertThat(out).doesNotExist();
  }

  @Test
  void exportSet_parameterTheReproductionApplies_refusedInOneLine() {
    Path out = dir.resolve("exp");
    Run r = cli(List.of("reproduce", "vcpu-preempted", "--export-experiments", out.toString(), "--set", "smt=2"));
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.err()).contains("[smt]", "applied by the reproduction");
    assertThat(out).doesNotExist();
  }
}

package org.lockvisor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lockvisor.arch.catalog.ArchProfiles;
import org.lockvisor.cli.CliFixture.Run;

/**
 * Parameters bound to one shipped file or to several paths ({@code ReproductionParameter.at(file,
 * path)}) are written by {@code reproduce NAME --export-experiments DIR --set P=V} into their file
 * only, and the exported file run by {@code lockvisor run} processes the same events as the
 * reproduction's run with the same {@code --set}: R2's {@code x86-vmm} (the x86 file's device
 * model) and R3's {@code groups} (the PowerVM file's {@code -g} and both files' run limit); R3's
 * {@code vps}, {@code pool-cpus} and {@code smt}, derived bindings over several parameters, likewise.
 * A bad value, an LPAR the pool cannot entitle, a path given twice and a parameter the
 * reproduction still applies itself are refused in one line, exit 2, before anything is written.
 */
class FileBoundParameterExportTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
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
    Run r = cli(List.of("reproduce", "vcpu-preempted", "--export-experiments", out.toString(), "--set", "seeds=2"));
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.err()).contains("[seeds]", "applied by the reproduction");
    assertThat(out).doesNotExist();
  }

  /**
   * R3's LPAR as derived paths: each target is what its formula gives (host.cpus = pool-cpus x
   * smt, vms[0].vcpus = vps x smt, entitlement = vps x the ppc64-powervm profile's units per VP,
   * the SMT mode twice), and {@code run} of the exported PowerVM file processes the same events as
   * the reproduction's run of that row with the same settings.
   */
  @Test
  void lparParameters_exportedAsTheirDerivedPaths_runEqualsReproduce() throws IOException {
    int smt = 2;
    int vps = 6;
    int pool = 6;
    List<String> sets = List.of("--set", "smt=" + smt, "--set", "vps=" + vps, "--set", "pool-cpus=" + pool,
        "--set", "groups=1");
    List<String> export = new ArrayList<>(List.of("reproduce", "vcpu-preempted", "--quick", "--export-experiments",
        dir.resolve("exp").toString()));
    export.addAll(sets);
    Run e = cli(export);
    assertThat(e.exitCode()).as(e.err()).isZero();
    JsonNode file = YAML.readTree(dir.resolve("exp/vcpu-preempted-powervm.yaml").toFile());
    double unitsPerVp = ArchProfiles.byName("ppc64-powervm").hypervisor().entitlement();
    assertThat(file.at("/host/cpus").asInt()).isEqualTo(pool * smt);
    assertThat(file.at("/vms/0/vcpus").asInt()).isEqualTo(vps * smt);
    assertThat(file.at("/host/scheduler-options/entitlement").asDouble()).isEqualTo(vps * unitsPerVp);
    assertThat(file.at("/host/scheduler-options/smt").asInt()).isEqualTo(smt);
    assertThat(file.at("/vms/0/kernel/threads-per-core").asInt()).isEqualTo(smt);
    assertThat(file.at("/vms/0/workloads/0/options/groups").asInt()).isEqualTo(1);
    assertThat(Files.readString(dir.resolve("exp/vcpu-preempted-powervm.yaml")).lines().findFirst().orElseThrow())
        .contains("--set host.cpus=" + pool * smt, "--set vms[0].vcpus=" + vps * smt);

    List<String> reproduce = new ArrayList<>(List.of("reproduce", "vcpu-preempted", "--quick", "--out",
        dir.resolve("r").toString(), "--set", "seeds=1"));
    reproduce.addAll(sets);
    Run r = cli(reproduce);
    assertThat(r.exitCode()).as(r.err()).isIn(0, 1); // one group: the bands may miss, the runs must have run
    Run x = cli(List.of("run", dir.resolve("exp/vcpu-preempted-powervm.yaml").toString(), "--variant", "patched",
        "--out", dir.resolve("x").toString()));
    assertThat(x.exitCode()).as(x.err()).isZero();
    JsonNode fromRun = JSON.readTree(Files.readString(dir.resolve("x/result.json")));
    JsonNode fromReproduce = JSON.readTree(Files.readString(
        dir.resolve("r/vcpu-preempted/runs/ppc64-powervm-groups1-patched-seed1/result.json")));
    assertThat(fromRun.at("/runs/0/fingerprint").asText()).isNotEmpty()
        .isEqualTo(fromReproduce.at("/runs/0/fingerprint").asText());
    assertThat(fromRun.at("/runs/0/events").asLong()).isPositive()
        .isEqualTo(fromReproduce.at("/runs/0/events").asLong());
  }

  @Test
  void exportQuick_theQuickLparWithoutSettings_andRefusedWhereItChangesNothing() throws IOException {
    Run e = cli(List.of("reproduce", "vcpu-preempted", "--quick", "--export-experiments",
        dir.resolve("exp").toString()));
    assertThat(e.exitCode()).as(e.err()).isZero();
    JsonNode file = YAML.readTree(dir.resolve("exp/vcpu-preempted-powervm.yaml").toFile());
    // --quick's LPAR: 8 VPs on 4 processors (the shipped file: 16 on 8)
    assertThat(file.at("/host/cpus").asInt()).isEqualTo(4);
    assertThat(file.at("/vms/0/vcpus").asInt()).isEqualTo(8);
    assertThat(file.at("/host/scheduler-options/entitlement").asDouble())
        .isEqualTo(8 * ArchProfiles.byName("ppc64-powervm").hypervisor().entitlement());

    Path out = dir.resolve("none");
    Run r = cli(List.of("reproduce", "virtio-blk-notify", "--quick", "--export-experiments", out.toString()));
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.err()).contains("--quick changes nothing");
    assertThat(out).doesNotExist();
  }

  @Test
  void exportSet_lparOverThePoolOrAPathGivenTwice_refusedInOneLine() {
    Path out = dir.resolve("exp");
    Run r = cli(List.of("reproduce", "vcpu-preempted", "--export-experiments", out.toString(), "--set", "vps=32",
        "--set", "pool-cpus=8"));
    assertThat(r.exitCode()).isEqualTo(2);
    assertThat(r.errLines()).hasSize(1);
    assertThat(r.err()).contains("[vps=32, pool-cpus=8]", "[16.0]", "PowerVM refuses");
    Run twice = cli(List.of("reproduce", "vcpu-preempted", "--export-experiments", out.toString(), "--set", "vps=6",
        "--set", "vms[0].vcpus=4"));
    assertThat(twice.exitCode()).isEqualTo(2);
    assertThat(twice.errLines()).hasSize(1);
    assertThat(twice.err()).contains("[vms[0].vcpus]", "[vps, smt]", "give it once");
    assertThat(out).doesNotExist();
  }
}

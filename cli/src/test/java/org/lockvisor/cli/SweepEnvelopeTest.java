package org.lockvisor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.lockvisor.cli.CliFixture.Run;

/**
 * {@code lockvisor sweep FILE --envelope}: the parameters are {@code --set} paths with their range
 * on the command line and cost estimates within their own range, the judged figures are {@code
 * --band} keys of the base, a variant or a variant over the base; bad input is one line and exit 2
 * before anything runs; a tiny envelope runs the base and every variant of quick-virtio-blk; {@code
 * --emit slurm} hands the envelope's arguments to every task.
 */
class SweepEnvelopeTest {

  static final Path FILE = Path.of("../examples/experiments/quick-virtio-blk.yaml");
  private static final ObjectMapper MAPPER = new ObjectMapper();

  @TempDir
  Path temp;

  static Stream<Arguments> badInputs() {
    return Stream.of(
        Arguments.of(List.of("--band", "base.vm0/fio.iops"), List.of("needs --param")),
        Arguments.of(List.of("--param", "vms[0].workloads[0].options.iodepth=4..16"), List.of("needs --band")),
        Arguments.of(List.of("--param", "vms[0].workloads[0].options.iodepth", "--band", "base.vm0/fio.iops"),
            List.of("no declared range here")),
        Arguments.of(List.of("--param", "cost.x86_64-kvm.EXIT_IO_KERNEL=100..9000", "--band", "base.vm0/fio.iops"),
            List.of("outside the declared range [1500, 8000]")),
        Arguments.of(List.of("--param", "cost.x86_64-kvm.EXIT_IO_KERNEL", "--band", "patched.vm0/fio.iops"),
            List.of("--band [patched.vm0/fio.iops]", "[base, arm64, inside-lock]")),
        Arguments.of(List.of("--param", "cost.x86_64-kvm.EXIT_IO_KERNEL", "--band", "ratio.base.vm0/fio.iops"),
            List.of("a ratio is of a variant over the base")),
        Arguments.of(List.of("--param", "cost.x86_64-kvm.EXIT_IO_KERNEL", "--band", "base.vm0/fio.iops=9..1"),
            List.of("LOW <= HIGH")),
        Arguments.of(List.of("--param", "cost.x86_64-kvm.EXIT_IO_KERNEL", "--band", "base.vm0/fio.iops",
            "--samples", "0"), List.of("--samples [0] is out of range")),
        Arguments.of(List.of("--param", "vms[0].workloads[0].options.iodepth=0..4", "--band", "base.vm0/fio.iops"),
            List.of("iodepth")),
        Arguments.of(List.of("--samples", "4", "--no-envelope"), List.of("take effect only with --envelope")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badInputs")
  void badInput_exit2_beforeAnythingRunsOrOutExists(List<String> extra, List<String> fragments) {
    Path out = temp.resolve("out");
    List<String> args = new ArrayList<>(List.of("sweep", FILE.toString(), "--out", out.toString()));
    if (!extra.contains("--no-envelope")) {
      args.add("--envelope");
    }
    extra.stream().filter(a -> !a.equals("--no-envelope")).forEach(args::add);
    Run run = CliFixture.run(args.toArray(String[]::new));
    assertThat(run.exitCode()).as("exit code; stderr: %s", run.err()).isEqualTo(Lockvisor.EXIT_USAGE);
    assertThat(run.err()).startsWith("lockvisor: ").contains(fragments).doesNotContain("\tat ", "Exception");
    assertThat(out).doesNotExist();
  }

  @Test
  void tinyEnvelope_runsBaseAndVariants_andJudgesTheBands() throws IOException {
    Path out = temp.resolve("env");
    Run run = CliFixture.run("sweep", FILE.toString(), "--envelope", "--samples", "3", "--seeds", "1", "--jobs", "2",
        "--param", "cost.x86_64-kvm.EXIT_IO_KERNEL", "--band", "base.vm0/fio.iops",
        "--band", "ratio.arm64.vm0/fio.iops=0..1", "--out", out.toString());
    assertThat(run.exitCode()).as(run.err()).isZero();
    JsonNode e = MAPPER.readTree(out.resolve("envelope.json").toFile());
    assertThat(e.get("effect").asText()).isEqualTo("ratio.arm64.vm0/fio.iops");
    assertThat(e.at("/quantities/0/baselineOnly").asBoolean()).isTrue();
    assertThat(e.at("/quantities/0/simulated/min").asDouble()).isPositive();
    // arm64's exit to the VMM under its lock cannot beat x86's in-kernel notify: the ratio is below 1
    assertThat(e.at("/quantities/1/simulated/max").asDouble()).isLessThan(1);
    assertThat(Files.list(out.resolve("runs")).count()).isEqualTo(3);
  }

  @Test
  void emitSlurm_tasksRunTheEnvelopeShards() throws IOException {
    Path out = temp.resolve("job");
    Run run = CliFixture.run("sweep", FILE.toString(), "--envelope", "--samples", "8", "--param",
        "cost.x86_64-kvm.EXIT_IO_KERNEL", "--band", "base.vm0/fio.iops", "--emit", "slurm", "--shards", "4", "--out",
        out.toString());
    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains("8 points in 4 shards");
    String script = Files.readString(out.resolve("lockvisor-sweep.sbatch"));
    assertThat(script).contains("--envelope", "--samples 8", "--param cost.x86_64-kvm.EXIT_IO_KERNEL",
        "--band base.vm0/fio.iops", "--resume", "--array=0-3");
  }
}

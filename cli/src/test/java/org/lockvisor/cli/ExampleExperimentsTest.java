package org.lockvisor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.lockvisor.cli.CliFixture.Run;

/**
 * Every experiment file shipped in examples/experiments validates against the built-in plugins,
 * except those that name a plugin of the examples module itself (they are checked there).
 */
class ExampleExperimentsTest {

  static final Path DIR = Path.of("../examples/experiments");

  static Stream<Path> examples() throws IOException {
    try (Stream<Path> files = Files.list(DIR)) {
      return files.filter(p -> p.toString().endsWith(".yaml")).filter(ExampleExperimentsTest::builtInOnly)
          .sorted().toList().stream();
    }
  }

  /**
   * Files that use an example plugin (the deliberately broken worker, the null-blk device) need the
   * examples module; they are checked there.
   */
  private static boolean builtInOnly(Path file) {
    try {
      String text = Files.readString(file);
      return !text.contains("type: broken-worker") && !text.contains("type: null-blk");
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void thereAreExamples() throws IOException {
    assertThat(examples().count()).isGreaterThanOrEqualTo(3);
  }

  /**
   * The seed reproductions' example experiment files run at a quick scale ({@code --set} overrides, as a
   * user would), base and variant, with the headline figure they document.
   */
  static Stream<Arguments> seedExamples() {
    // R1's file ships with its reproduction (reproduce vhost-wakeup --export-experiments):
    // VhostReproduceEqualsRunTest runs it
    return Stream.of(
        Arguments.of("r3-vcpu-preempted.yaml", "messages_written", List.of("--set", "duration=20ms", "--set",
            "host.cpus=4", "--set", "host.scheduler-options.entitlement=4", "--set", "vms[0].vcpus=8", "--set",
            "vms[0].workloads[0].options.groups=1")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("seedExamples")
  void seedExample_runsBaseAndPatched(String name, String figure, List<String> quick) {
    List<String> args = new ArrayList<>(List.of("run", DIR.resolve(name).toString()));
    args.addAll(quick);

    Run run = CliFixture.run(args.toArray(String[]::new));

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains("[base]", "[patched]", figure);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("examples")
  void exampleValidates(Path file) {
    Run run = CliFixture.run("validate", file.toString());

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.err()).isEmpty();
  }

  /**
   * quick-virtio-blk shows four fio jobs' worth of IOPS in every variant: each job reaps I/O in the
   * window (one of the four reaped none on every seed before, when the VMM main loop floated onto
   * a vCPU's CPU and kept it), and the run says nothing of idle tasks.
   */
  @Test
  void quickVirtioBlk_everyJobDoesIo_inEveryVariant() throws IOException {
    Run run = CliFixture.run("run", DIR.resolve("quick-virtio-blk.yaml").toString(), "--format", "json");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.err()).doesNotContain("did no work");
    com.fasterxml.jackson.databind.JsonNode result = Json.MAPPER.readTree(run.out());
    List<com.fasterxml.jackson.databind.JsonNode> fios = result.findParents("idle_tasks");
    assertThat(fios).hasSize(3); // base, inside-lock, arm64
    assertThat(fios).allSatisfy(f -> {
      assertThat(f.get("idle_tasks").asLong()).as(f.toString()).isZero();
      assertThat(f.get("completed").asLong()).as(f.toString()).isPositive();
    });
  }

  /** A workload with a task that did no work is flagged on stderr, naming it. */
  @Test
  void workloadWithAnIdleTask_isFlagged() {
    // the example as it was: four host CPUs for four pinned vCPUs and a floating VMM main loop
    Run run = CliFixture.run("run", DIR.resolve("quick-virtio-blk.yaml").toString(), "--variant", "base", "--set",
        "host.cpus=4", "--set", "vms[0].devices[0].options.vmm-cpu=-1");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains("idle_tasks");
    assertThat(run.errLines()).anySatisfy(line -> assertThat(line).startsWith("lockvisor: warning: [base] workload"
        + " vm0/fio: 1 task did no work in the 3ms measurement window"));
  }
}

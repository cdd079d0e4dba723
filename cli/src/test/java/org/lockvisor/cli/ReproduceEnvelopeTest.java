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
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.lockvisor.cli.CliFixture.Run;

/**
 * {@code lockvisor reproduce NAME --envelope}, on a fake reproduction whose bands follow its
 * declared setup: bad input is one line and exit 2 before anything runs or any directory exists;
 * the same seed gives the same envelope whatever the parallelism; shards merged equal the unsharded
 * run, and an incomplete shard set is refused; the summary finds the influential parameter and the
 * consistent region the fake's formula implies. (A real reproduction's envelope runs in the
 * reproductions module, VirtioBlkEnvelopeTest.)
 */
class ReproduceEnvelopeTest {

  private static final ObjectMapper MAPPER = new ObjectMapper();

  @TempDir
  Path temp;

  private ClassLoader fakes;

  @BeforeEach
  void register() {
    fakes = CliFixture.withReproductions(temp.resolve("plugins"), FakeReproductions.WithEnvelope.class);
  }

  static Stream<Arguments> badInputs() {
    return Stream.of(
        Arguments.of(List.of("fake-envelope", "--envelope", "--param", "nope"),
            List.of("--param [nope]", "not a parameter of fake-envelope", "declared: [level, mode]")),
        Arguments.of(List.of("fake-envelope", "--envelope", "--param", "fixed"),
            List.of("[fixed]", "declares no plausible range")),
        Arguments.of(List.of("fake-envelope", "--envelope", "--param", "seed"),
            List.of("[seed]", "declares no plausible range")),
        Arguments.of(List.of("fake-envelope", "--envelope", "--param", "level=0..12"),
            List.of("--param [level=0..12]", "outside the declared range [1, 9]")),
        Arguments.of(List.of("fake-envelope", "--envelope", "--param", "mode=a|c"),
            List.of("[c] lies outside the declared values [a, b]")),
        Arguments.of(List.of("fake-envelope", "--envelope", "--param", "cost.x86_64-kvm.TTWU_FULL=100..5000"),
            List.of("outside the declared range [500, 1500]")),
        Arguments.of(List.of("fake-envelope", "--envelope", "--param", "cost.x86_64-kvm.CPU_CYCLE"),
            List.of("CPU_CYCLE is not an estimate with a range")),
        Arguments.of(List.of("fake-envelope", "--envelope", "--param", "cost.arm64-kvm.EXIT_USERSPACE"),
            List.of("builds no machine on [arm64-kvm]")),
        Arguments.of(List.of("fake-envelope", "--envelope", "--param", "level=9..1"), List.of("LOW < HIGH")),
        Arguments.of(List.of("fake-envelope", "--envelope", "--param", "level", "--param", "level=2..3"),
            List.of("[level] is given twice")),
        Arguments.of(List.of("fake-envelope", "--envelope", "--samples", "0"),
            List.of("--samples [0] is out of range")),
        Arguments.of(List.of("fake-envelope", "--envelope", "--seeds", "0"), List.of("--seeds [0] is out of range")),
        Arguments.of(List.of("fake-envelope", "--envelope", "--jobs", "0"), List.of("--jobs [0] is out of range")),
        Arguments.of(List.of("fake-envelope", "--envelope", "--shard", "2/2", "--out", "OUT"),
            List.of("--shard [2/2]")),
        Arguments.of(List.of("fake-envelope", "--envelope", "--set", "level=3"), List.of("[level] is set by the"
            + " envelope")),
        Arguments.of(List.of("fake-envelope", "--samples", "4"), List.of("take effect only with --envelope")),
        Arguments.of(List.of("fake-envelope", "--emit", "slurm"), List.of("--emit takes effect only with --envelope")),
        Arguments.of(List.of("fake-envelope", "--mem", "4G"), List.of("--mem takes effect only with --envelope")),
        Arguments.of(List.of("fake-envelope", "--envelope", "--time", "1:00:00"),
            List.of("--time takes effect only with --emit slurm")),
        Arguments.of(List.of("fake-envelope", "--envelope", "--emit", "slurm", "--time", "soon", "--out", "OUT"),
            List.of("--time [soon] is not a Slurm time limit")),
        Arguments.of(List.of("fake-envelope", "--calibrate", "--emit", "slurm"),
            List.of("--emit are options of --envelope, not of --calibrate")),
        Arguments.of(List.of("fake-envelope", "--envelope", "--emit", "pbs"), List.of("--emit [pbs] is not a cluster"
            + " scheduler")),
        Arguments.of(List.of("fake-envelope", "--envelope", "--emit", "slurm", "--shards", "5", "--samples", "4"),
            List.of("--shards [5] is out of range; allowed: [1, 4]")),
        Arguments.of(List.of("fake-envelope", "--envelope", "--emit", "k8s"), List.of("--emit [k8s] is not a cluster"
            + " scheduler; allowed: [slurm] (the Kubernetes emitter was removed")),
        Arguments.of(List.of("fake-envelope", "--envelope", "--emit", "slurm", "--shard", "0/2"),
            List.of("--shard cannot be given with --emit")),
        Arguments.of(List.of("fake-envelope", "--envelope", "--shards", "2"),
            List.of("--shards takes effect only with --emit")),
        Arguments.of(List.of("all", "--envelope"), List.of("--envelope runs one reproduction")),
        Arguments.of(List.of("no-such-reproduction", "--envelope"), List.of("[no-such-reproduction]")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badInputs")
  void badInput_exit2OneLine_beforeAnythingRunsOrOutExists(List<String> args, List<String> fragments) {
    Path out = temp.resolve("out");
    List<String> all = new ArrayList<>(List.of("reproduce"));
    args.forEach(a -> all.add(a.equals("OUT") ? out.toString() : a));
    if (!all.contains("--out")) {
      all.add("--out");
      all.add(out.toString());
    }
    Run run = CliFixture.run(fakes, all.toArray(String[]::new));
    assertThat(run.exitCode()).as("exit code; stderr: %s", run.err()).isEqualTo(Lockvisor.EXIT_USAGE);
    assertThat(run.errLines()).as(run.err()).hasSize(1);
    assertThat(run.err()).startsWith("lockvisor: ").contains(fragments).doesNotContain("\tat ", "Exception");
    assertThat(run.out()).isEmpty();
    assertThat(out).doesNotExist();
  }

  @Test
  void sameSeed_sameEnvelope_whateverTheJobs() throws IOException {
    Run one = CliFixture.run(fakes, "reproduce", "fake-envelope", "--envelope", "--samples", "16", "--seeds", "2",
        "--jobs", "1", "--format", "json");
    Run three = CliFixture.run(fakes, "reproduce", "fake-envelope", "--envelope", "--samples", "16", "--seeds", "2",
        "--jobs", "3", "--format", "json");
    Run other = CliFixture.run(fakes, "reproduce", "fake-envelope", "--envelope", "--samples", "16", "--seeds", "2",
        "--seed", "7", "--format", "json");
    assertThat(one.exitCode()).as(one.err()).isZero();
    assertThat(MAPPER.readTree(three.out())).isEqualTo(MAPPER.readTree(one.out()));
    assertThat(MAPPER.readTree(other.out()).get("sampleValues")).isNotEqualTo(MAPPER.readTree(one.out())
        .get("sampleValues"));
  }

  @Test
  void shardsMerged_equalTheUnshardedRun_andAnIncompleteSetIsRefused() throws IOException {
    String[] common = {"reproduce", "fake-envelope", "--envelope", "--samples", "9", "--seeds", "2", "--jobs", "2"};
    Path whole = temp.resolve("whole");
    assertThat(CliFixture.run(fakes, with(common, "--out", whole.toString())).exitCode()).isZero();
    List<Path> shards = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      Path d = temp.resolve("shard-" + i);
      Run r = CliFixture.run(fakes, with(common, "--shard", i + "/3", "--out", d.toString()));
      assertThat(r.exitCode()).as(r.err()).isZero();
      assertThat(r.out()).contains("merge the shards");
      shards.add(d);
    }
    Path merged = temp.resolve("merged");
    Run m = CliFixture.run(fakes, "merge", shards.get(0).toString(), shards.get(1).toString(),
        shards.get(2).toString(), "--out", merged.toString());
    assertThat(m.exitCode()).as(m.err()).isZero();
    assertThat(MAPPER.readTree(merged.resolve("envelope.json").toFile()))
        .isEqualTo(MAPPER.readTree(whole.resolve("envelope.json").toFile()));
    assertThat(merged.resolve("report.html")).content().contains("Setup envelope", "Consistent region");

    Run partial = CliFixture.run(fakes, "merge", shards.get(0).toString(), shards.get(2).toString());
    assertThat(partial.exitCode()).isEqualTo(Lockvisor.EXIT_USAGE);
    assertThat(partial.err()).contains("incomplete envelope", "6 of 18 runs missing", "samples [1, 4, 7]");
    Run allowed = CliFixture.run(fakes, "merge", shards.get(0).toString(), shards.get(2).toString(),
        "--allow-partial");
    assertThat(allowed.exitCode()).as(allowed.err()).isZero();
    assertThat(MAPPER.readTree(allowed.out()).get("partial").asBoolean()).isTrue();
  }

  @Test
  void emitSlurm_writesAnArrayWhoseTasksRunTheEnvelopesShards() throws IOException {
    Path shared = temp.resolve("shared");
    Run emit = CliFixture.run(fakes, "reproduce", "fake-envelope", "--envelope", "--samples", "6", "--seeds", "2",
        "--param", "level=2..8", "--quick", "--out", shared.toString(), "--emit", "slurm", "--shards", "3");
    assertThat(emit.exitCode()).as(emit.err()).isZero();
    assertThat(emit.out()).contains("6 samples x 2 seeds in 3 shards", "sbatch", "lockvisor merge");
    String script = java.nio.file.Files.readString(shared.resolve("lockvisor-sweep.sbatch"));
    assertThat(script).contains("#SBATCH --array=0-2", " org.lockvisor.cli.Lockvisor reproduce fake-envelope ",
        " --resume ", "--envelope --samples 6 --seeds 2 --quick --param level=2..8",
        "--out " + shared + "/shard-\"$i\" --shard \"$i/3\"")
        .doesNotContain("Lockvisor sweep");
    // nothing ran: only the job description is in the directory (beside the output marker)
    try (var files = java.nio.file.Files.list(shared)) {
      assertThat(files.map(f -> f.getFileName().toString()).filter(f -> !f.startsWith(".")))
          .containsExactly("lockvisor-sweep.sbatch");
    }
  }

  @Test
  void summary_findsTheInfluentialParameterAndTheConsistentRegion(@TempDir Path out) throws IOException {
    Run r = CliFixture.run(fakes, "reproduce", "fake-envelope", "--envelope", "--samples", "32", "--seeds", "2",
        "--out", out.toString());
    assertThat(r.exitCode()).as(r.err()).isZero();
    JsonNode e = MAPPER.readTree(out.resolve("envelope.json").toFile());
    // the fake's ratio is 1 + 0.02 level (+ 5 / baseline in mode b): level dominates it
    JsonNode ratio = e.get("quantities").get(2);
    assertThat(ratio.get("key").asText()).isEqualTo("ratio");
    assertThat(e.get("effect").asText()).isEqualTo("ratio");
    assertThat(ratio.at("/prcc/level").asDouble()).isGreaterThan(0.9);
    assertThat(Math.abs(ratio.at("/prcc/cost.x86_64-kvm.TTWU_FULL").asDouble()))
        .isLessThan(Math.abs(ratio.at("/prcc/level").asDouble()));
    // ratio band 1.05-1.15 needs level 3..7; baseline 120-180 holds for those: a region exists
    assertThat(e.get("consistent").size()).isBetween(1, 31);
    for (JsonNode s : e.get("consistent")) {
      int level = Integer.parseInt(s.at("/setting/level").asText());
      assertThat(level).isBetween(2, 7);
    }
    assertThat(e.at("/quantities/0/baselineOnly").asBoolean()).isTrue();
    assertThat(e.at("/quantities/0/publishedInside").asBoolean()).isTrue();
    assertThat(out.resolve("plots/effect-vs-level.png")).exists();
    assertThat(out.resolve("plots/effect-vs-level.svg")).exists();
    assertThat(r.out()).contains("consistent region:", "influence on the effect [ratio]");
    assertThat(Files.list(out.resolve("runs")).count()).isEqualTo(64);
  }

  private static String[] with(String[] common, String... more) {
    List<String> a = new ArrayList<>(List.of(common));
    a.addAll(List.of(more));
    return a.toArray(String[]::new);
  }
}

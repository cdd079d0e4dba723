package org.lockvisor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lockvisor.cli.CliFixture.Run;

/**
 * {@code sweep} and {@code merge} on the example sweep (8 points x 3 replications, shortened):
 * parallel runs give the same results as sequential ones; an interrupted sweep resumed with
 * {@code --resume} runs only the missing points; two shards merged equal the unsharded sweep.
 */
class SweepCommandsTest {

  static final Path SWEEP = Path.of("../examples/experiments/locktorture-sweep.yaml");
  private static final ObjectMapper MAPPER = new ObjectMapper();

  @TempDir
  Path temp;

  private Path full;

  private Run sweep(Path out, String... extra) {
    String[] base = {"sweep", SWEEP.toString(), "--out", out.toString(), "--set", "warmup=0", "--set",
        "duration=1500us"};
    String[] args = new String[base.length + extra.length];
    System.arraycopy(base, 0, args, 0, base.length);
    System.arraycopy(extra, 0, args, base.length, extra.length);
    return CliFixture.run(args);
  }

  private static JsonNode json(Path file) throws IOException {
    return MAPPER.readTree(file.toFile());
  }

  @BeforeEach
  void fullSweep() {
    full = temp.resolve("full");
    Run run = sweep(full, "--jobs", "1");
    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains("8 points, ran 8, skipped 0");
  }

  @Test
  void sweep_summaryHasMeansIntervalsAndPairedDifferences() throws IOException {
    JsonNode sweep = json(full.resolve("sweep.json"));

    assertThat(sweep.get("points")).hasSize(8);
    JsonNode first = sweep.at("/points/0/summary");
    assertThat(first.at("/base/vm0~1torture.acquisitions_per_s/n").asInt()).isEqualTo(3);
    assertThat(first.at("/base/vm0~1torture.acquisitions_per_s/mean").asDouble()).isPositive();
    assertThat(first.at("/base/vm0~1torture.acquisitions_per_s/ci95").isNumber()).isTrue();
    assertThat(first.at("/tas/paired/vm0~1torture.acquisitions_per_s/n").asInt()).isEqualTo(3);
    // Replications use different seeds.
    JsonNode point = json(full.resolve("points/point-00000.json"));
    assertThat(point.at("/replications/0/seed").asLong()).isNotEqualTo(point.at("/replications/1/seed").asLong());
    // A plot per metric against the first swept parameter, beside sweep.json.
    assertThat(full.resolve("plots/vm0_torture.acquisitions_per_s.png")).isRegularFile();
    assertThat(full.resolve("plots/vm0_torture.acquisitions_per_s.svg")).isRegularFile();
  }

  @Test
  void jobs2_sameResultsAsJobs1() throws IOException {
    Path parallel = temp.resolve("parallel");
    assertThat(sweep(parallel, "--jobs", "2").exitCode()).isZero();

    assertThat(json(parallel.resolve("sweep.json"))).isEqualTo(json(full.resolve("sweep.json")));
  }

  @Test
  void resume_runsOnlyMissingPoints() throws IOException {
    JsonNode expected = json(full.resolve("sweep.json"));
    // As if killed after point 4: the later points and the summary were never written.
    for (int i = 5; i < 8; i++) {
      Files.delete(full.resolve(String.format("points/point-%05d.json", i)));
    }
    Files.delete(full.resolve("sweep.json"));
    Path kept = full.resolve("points/point-00000.json");
    ObjectNode marked = (ObjectNode) json(kept);
    marked.put("marker", "not rerun");
    Files.writeString(kept, MAPPER.writeValueAsString(marked));

    Run run = sweep(full, "--jobs", "2", "--resume");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains("ran 3, skipped 5");
    assertThat(json(kept).path("marker").asText()).isEqualTo("not rerun");
    assertThat(json(full.resolve("sweep.json"))).isEqualTo(expected);
  }

  @Test
  void twoShardsMerged_equalTheUnshardedSweep() throws IOException {
    Path a = temp.resolve("shard0");
    Path b = temp.resolve("shard1");
    Run first = sweep(a, "--shard", "0/2");
    Run second = sweep(b, "--shard", "1/2");
    assertThat(first.out()).contains("ran 4", "incomplete");
    assertThat(second.out()).contains("ran 4", "incomplete");

    Path merged = temp.resolve("merged");
    Run merge = CliFixture.run("merge", a.toString(), b.toString(), "--out", merged.toString());

    assertThat(merge.exitCode()).as(merge.err()).isZero();
    ObjectNode fromShards = (ObjectNode) json(merged.resolve("sweep.json"));
    ObjectNode unsharded = (ObjectNode) json(full.resolve("sweep.json"));
    // the descriptor records how the points were run; everything else is equal
    assertThat(fromShards.remove("shards")).containsExactly(MAPPER.valueToTree("0/2"), MAPPER.valueToTree("1/2"));
    assertThat(unsharded.remove("shards")).containsExactly(MAPPER.valueToTree("0/1"));
    assertThat(fromShards).isEqualTo(unsharded);
    assertThat(fromShards.get("points_total").asInt()).isEqualTo(8);
    assertThat(fromShards.get("partial").asBoolean()).isFalse();
  }

  @Test
  void mergeOfOneShardOfTwo_exit2NamingTheMissingShard_orPartialWithAllowPartial() throws IOException {
    Path a = temp.resolve("shard0");
    assertThat(sweep(a, "--shard", "0/2").exitCode()).isZero();

    Run refused = CliFixture.run("merge", a.toString(), "--out", temp.resolve("m1").toString());
    Run partial = CliFixture.run("merge", a.toString(), "--allow-partial", "--out", temp.resolve("m2").toString());

    assertThat(refused.exitCode()).isEqualTo(2);
    assertThat(refused.errLines()).singleElement().asString()
        .contains("incomplete", "4 of 8 points missing", "points 1, 3, 5, 7", "shard 1/2 not given", "--allow-partial");
    assertThat(temp.resolve("m1")).doesNotExist();
    assertThat(partial.exitCode()).as(partial.err()).isZero();
    JsonNode sweep = json(temp.resolve("m2/sweep.json"));
    assertThat(sweep.get("partial").asBoolean()).isTrue();
    assertThat(sweep.get("missing_points")).hasSize(4);
    assertThat(sweep.get("points")).hasSize(4);
  }

  @Test
  void mergeOfTheSameShardTwice_exit2() {
    Path a = temp.resolve("shard0");
    Path b = temp.resolve("shard1");
    assertThat(sweep(a, "--shard", "0/2").exitCode()).isZero();
    assertThat(sweep(b, "--shard", "1/2").exitCode()).isZero();

    Run twice = CliFixture.run("merge", a.toString(), b.toString(), a.toString());
    Run bothCopies = CliFixture.run("merge", a.toString(), b.toString(), full.toString());

    assertThat(twice.exitCode()).isEqualTo(2);
    assertThat(twice.errLines()).singleElement().asString().contains("duplicated", "given twice");
    assertThat(bothCopies.exitCode()).isEqualTo(2);
    assertThat(bothCopies.errLines()).singleElement().asString().contains("duplicated", "point 0 is in both");
  }

  @Test
  void badShard_exit2OneLine() {
    Run run = sweep(temp.resolve("x"), "--shard", "2/2");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.errLines()).singleElement().asString().contains("--shard [2/2] needs 0 <= i < N");
  }

  @Test
  void mergeOfDifferentSweeps_exit2() {
    Path other = temp.resolve("other");
    assertThat(CliFixture.run("sweep", SWEEP.toString(), "--out", other.toString(), "--set", "warmup=0",
        "--set", "duration=1ms", "--shard", "0/8").exitCode()).isZero();

    Run merge = CliFixture.run("merge", full.toString(), other.toString());

    assertThat(merge.exitCode()).isEqualTo(2);
    assertThat(merge.err()).contains("it belongs to sweep");
  }
}

package org.lockvisor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The same configuration and seed give the same fingerprint and the same result.json (wall-clock
 * fields aside) in two separate JVM processes, with and without a schedule perturbation; and a
 * sweep gives the same merged results with one job and with two.
 */
class DeterminismTest {

  @TempDir
  Path temp;

  private static final ObjectMapper JSON = new ObjectMapper();

  private int lockvisor(Path out, String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
        "-cp", System.getProperty("java.class.path"), Lockvisor.class.getName()));
    command.addAll(List.of(args));
    Process p = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(out.resolveSibling(out.getFileName() + ".log").toFile()).start();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("lockvisor " + String.join(" ", args) + " did not finish in 120 s");
    }
    return p.exitValue();
  }

  /** result.json without the wall-clock fields. */
  private static JsonNode withoutWallClock(Path resultJson) throws IOException {
    JsonNode root = JSON.readTree(resultJson.toFile());
    strip(root);
    return root;
  }

  private static void strip(JsonNode node) {
    if (node instanceof ObjectNode o) {
      List<String> names = new ArrayList<>();
      o.fieldNames().forEachRemaining(names::add);
      for (String name : names) {
        if (name.startsWith("wall") || name.endsWith("wall_ns") || name.equals("elapsed_s")
            || org.lockvisor.experiment.runner.ResultJson.WALL_CLOCK_FIELDS.contains(name)) {
          o.remove(name);
        }
      }
    }
    node.forEach(DeterminismTest::strip);
  }

  @Test
  void sameConfigAndSeed_twoJvms_identicalResultJson() throws Exception {
    String example = ExperimentCommandsTest.EXAMPLE.toString();
    for (String perturb : new String[] {"0", "17"}) {
      Path a = temp.resolve("a" + perturb);
      Path b = temp.resolve("b" + perturb);
      String[] args = {"run", example, "--set", "duration=5ms", "--seed", "7", "--perturb", perturb,
          "--check-invariants", "--format", "json", "--out"};
      assertThat(lockvisor(a, concat(args, a.toString()))).isZero();
      assertThat(lockvisor(b, concat(args, b.toString()))).isZero();

      JsonNode ra = withoutWallClock(a.resolve("result.json"));
      JsonNode rb = withoutWallClock(b.resolve("result.json"));
      assertThat(ra.get("runs").findValues("fingerprint")).hasSize(3).doesNotHaveDuplicates();
      assertThat(ra).isEqualTo(rb);
      assertThat(ra.findValues("events").get(0).asLong()).isPositive();
    }
  }

  @Test
  void sweep_oneJobOrTwo_sameResults() throws Exception {
    Path sweep = Path.of("../examples/experiments/locktorture-sweep.yaml");
    Path one = temp.resolve("one");
    Path two = temp.resolve("two");
    CliFixture.Run r1 = CliFixture.run("sweep", sweep.toString(), "--set", "duration=2ms", "--out", one.toString(),
        "--jobs", "1");
    CliFixture.Run r2 = CliFixture.run("sweep", sweep.toString(), "--set", "duration=2ms", "--out", two.toString(),
        "--jobs", "2");
    assertThat(r1.exitCode()).as(r1.err()).isZero();
    assertThat(r2.exitCode()).as(r2.err()).isZero();

    List<Path> files;
    try (var s = Files.walk(one)) {
      files = s.filter(p -> p.toString().endsWith(".json")).toList();
    }
    assertThat(files).isNotEmpty();
    for (Path f : files) {
      Path other = two.resolve(one.relativize(f));
      assertThat(withoutWallClock(f)).as(f.toString()).isEqualTo(withoutWallClock(other));
    }
  }

  private static String[] concat(String[] a, String last) {
    String[] r = java.util.Arrays.copyOf(a, a.length + 1);
    r[a.length] = last;
    return r;
  }
}

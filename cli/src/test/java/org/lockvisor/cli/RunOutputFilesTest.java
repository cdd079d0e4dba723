package org.lockvisor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lockvisor.cli.CliFixture.Run;
import org.lockvisor.experiment.runner.ResultJson;

/**
 * {@code lockvisor run FILE --out DIR}: the files of docs/outputs.md for the base and each
 * variant, the provenance manifest, and the same bytes for the same inputs (apart from the
 * wall-clock fields of result.json).
 */
class RunOutputFilesTest {

  static final Path EXAMPLE = ExperimentCommandsTest.EXAMPLE;
  static final ObjectMapper MAPPER = new ObjectMapper();

  @TempDir
  Path temp;

  private Run run(Path out, String... extra) {
    List<String> args = new java.util.ArrayList<>(List.of("run", EXAMPLE.toString(), "--set", "duration=3ms",
        "--set", "warmup=1ms", "--out", out.toString()));
    args.addAll(List.of(extra));
    return CliFixture.run(args.toArray(String[]::new));
  }

  @Test
  void out_writesEveryFormat_perVariant_withDiffsAndPage() throws IOException {
    Path out = temp.resolve("out");
    Run r = run(out, "--trace", "--trace-max-events", "5000");

    assertThat(r.exitCode()).as(r.err()).isZero();
    for (String v : List.of("", "-tas", "-ticket")) {
      for (String f : List.of("perf-report%s.txt", "oncpu%s.folded", "spin%s.folded", "offcpu%s.folded",
          "kvm-stat%s.txt", "lock_stat%s.txt", "lock-contention%s.txt", "trace%s.json")) {
        assertThat(out.resolve(String.format(f, v))).isNotEmptyFile();
      }
    }
    for (String v : List.of("tas", "ticket")) {
      assertThat(out.resolve("oncpu-diff-" + v + ".folded")).isNotEmptyFile();
      assertThat(out.resolve("spin-diff-" + v + ".folded")).exists();
    }
    JsonNode trace = MAPPER.readTree(out.resolve("trace.json").toFile());
    assertThat(trace.at("/metadata/events").asInt()).isPositive().isLessThanOrEqualTo(5000);
    String page = Files.readString(out.resolve("report.html"));
    assertThat(page).contains("<svg", "perf-report-ticket.txt", "lock_stat", "config sha256", "[k] ");
    try (Stream<Path> files = Files.list(out)) {
      for (Path f : files.toList()) {
        String name = f.getFileName().toString();
        if (!name.equals("report.html") && !name.equals(OutputDirectory.MARKER)) {
          assertThat(page).as("link to " + name).contains("href=\"" + name + "\"");
        }
      }
    }

    JsonNode p = MAPPER.readTree(out.resolve("result.json").toFile()).get("provenance");
    assertThat(p.get("lockvisor_version").asText()).isNotBlank();
    assertThat(p.get("git_commit").asText()).isNotBlank();
    assertThat(p.get("config_sha256").asText()).matches("[0-9a-f]{64}");
    assertThat(p.get("root_seed").asLong()).isEqualTo(42);
    assertThat(p.get("plugins").findValuesAsText("name")).contains("x86_64-kvm", "cfs", "locktorture",
        "pv-qspinlock", "ticket", "tas");
    assertThat(p.get("plugins").findValuesAsText("version")).doesNotContain("");
    assertThat(p.get("fingerprints")).hasSize(3);
    assertThat(p.get("events").asLong()).isPositive();
    assertThat(p.get("simulated_ns").asLong()).isEqualTo(3 * (1_000_000 + 3_000_000));
    assertThat(p.get("wall_ns").asLong()).isPositive();
    assertThat(p.get("events_per_s").asLong()).isPositive();
  }

  @Test
  void sameInputs_sameBytes_apartFromWallClock_andTheConfigHashFollowsTheConfig() throws IOException {
    Path a = temp.resolve("a");
    Path b = temp.resolve("b");
    assertThat(run(a, "--variant", "ticket").exitCode()).isZero();
    assertThat(run(b, "--variant", "ticket").exitCode()).isZero();

    try (Stream<Path> files = Files.list(a)) {
      for (Path f : files.toList()) {
        String name = f.getFileName().toString();
        String left = Files.readString(f);
        String right = Files.readString(b.resolve(name));
        if (name.equals("result.json") || name.equals("report.html")) {
          left = withoutWallClock(left);
          right = withoutWallClock(right);
        }
        assertThat(left).as(name).isEqualTo(right);
      }
    }
    Path c = temp.resolve("c");
    assertThat(run(c, "--variant", "ticket", "--seed", "43").exitCode()).isZero();
    assertThat(MAPPER.readTree(c.resolve("result.json").toFile()).at("/provenance/config_sha256"))
        .isNotEqualTo(MAPPER.readTree(a.resolve("result.json").toFile()).at("/provenance/config_sha256"));
  }

  /** Drops the lines carrying wall-clock time: result.json's fields and the page's wall column. */
  private static String withoutWallClock(String text) {
    StringBuilder out = new StringBuilder();
    for (String line : text.split("\n")) {
      boolean wall = ResultJson.WALL_CLOCK_FIELDS.stream().anyMatch(f -> line.contains("\"" + f + "\""));
      out.append(wall ? "" : line.replaceAll("(<td>[0-9a-f]{16}</td>)<td>\\d+\\.\\d\\d</td></tr>", "$1<td>wall</td></tr>")).append('\n');
    }
    return out.toString();
  }

  @Test
  void trace_withoutOut_orNonPositiveBound_exit2WithOneLine() {
    Run noOut = CliFixture.run("run", EXAMPLE.toString(), "--trace");
    assertThat(noOut.exitCode()).isEqualTo(2);
    assertThat(noOut.errLines()).hasSize(1);
    assertThat(noOut.err()).contains("--trace needs --out");

    Run zero = run(temp.resolve("z"), "--trace", "--trace-max-events", "0");
    assertThat(zero.exitCode()).isEqualTo(2);
    assertThat(zero.errLines()).hasSize(1);
    assertThat(zero.err()).contains("--trace-max-events");
  }
}

package org.lockvisor.reports;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/**
 * Helpers of the tests that run the real tools: finding a tool ({@code PATH}, or {@code
 * FLAMEGRAPH_DIR} for Brendan Gregg's FlameGraph scripts), running it with a deadline, and the
 * key paths of a JSON document (arrays as {@code []}, the keys of {@code bins} and {@code job
 * options}, which are data, as {@code *}).
 */
final class RealTools {

  private RealTools() {}

  /** The result of a finished process. */
  record Run(int exit, String out, String err) {}

  /** {@code name} on the {@code PATH}, or in {@code $FLAMEGRAPH_DIR} for the FlameGraph scripts. */
  static Optional<Path> find(String name) {
    List<String> dirs = new ArrayList<>();
    String fg = System.getenv("FLAMEGRAPH_DIR");
    if (fg != null && !fg.isBlank()) {
      dirs.add(fg);
    }
    String path = System.getenv("PATH");
    if (path != null) {
      dirs.addAll(List.of(path.split(java.io.File.pathSeparator)));
    }
    dirs.add("/usr/share/flamegraph");
    for (String d : dirs) {
      if (d.isBlank()) {
        continue;
      }
      Path p = Path.of(d, name);
      if (Files.isRegularFile(p) && Files.isExecutable(p)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  /** Runs {@code command} in {@code dir} with {@code stdin} (may be null), failing after {@code seconds}. */
  static Run run(Path dir, Path stdin, long seconds, String... command) throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile());
    Path out = Files.createTempFile(dir, "out", ".txt");
    Path err = Files.createTempFile(dir, "err", ".txt");
    pb.redirectOutput(out.toFile()).redirectError(err.toFile());
    if (stdin != null) {
      pb.redirectInput(stdin.toFile());
    } else {
      pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
    }
    Process p = pb.start();
    if (!p.waitFor(seconds, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError(String.join(" ", command) + " did not finish in " + seconds + " s");
    }
    return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }

  /** Like {@link #run}, asserting exit status 0 (a crash of the tool fails the test with its stderr). */
  static String ok(Path dir, Path stdin, long seconds, String... command) throws IOException, InterruptedException {
    Run r = run(dir, stdin, seconds, command);
    assertThat(r.exit()).as(String.join(" ", command) + " exit status; stderr:\n" + r.err()).isZero();
    return r.out();
  }

  /** Every leaf key path of {@code node}, e.g. {@code /jobs/[]/read/clat_ns/bins/*}. */
  static Set<String> keyPaths(JsonNode node) {
    Set<String> out = new TreeSet<>();
    collect(node, "", out);
    return out;
  }

  private static void collect(JsonNode node, String at, Set<String> out) {
    if (node.isObject()) {
      if (node.isEmpty()) {
        out.add(at + "/{}");
      }
      boolean data = at.endsWith("/bins") || at.endsWith("/job options");
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        collect(e.getValue(), at + "/" + (data ? "*" : e.getKey()), out);
      }
    } else if (node.isArray()) {
      if (node.isEmpty()) {
        out.add(at + "/[]");
      }
      for (JsonNode n : node) {
        collect(n, at + "/[]", out);
      }
    } else {
      out.add(at);
    }
  }

  /**
   * The reference's key paths that {@code ours} lacks, less those listed as not applicable.
   * Fails if a not-applicable entry is present after all (the list must stay true).
   */
  static Set<String> missing(JsonNode reference, JsonNode ours, Map<String, String> notApplicable) {
    Set<String> have = keyPaths(ours);
    Set<String> missing = new TreeSet<>(keyPaths(reference));
    missing.removeAll(have);
    for (String na : notApplicable.keySet()) {
      assertThat(have).as("listed as not applicable but present: " + na).doesNotContain(na);
    }
    missing.removeAll(notApplicable.keySet());
    return missing;
  }
}

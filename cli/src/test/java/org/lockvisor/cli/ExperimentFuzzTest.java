package org.lockvisor.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Input robustness: {@value #CASES} seeded mutations of the example experiments (values replaced
 * by values of other types, out of range or malformed; keys deleted, renamed or added; lists
 * emptied or duplicated; the text truncated or corrupted). Each must run (exit 0), be rejected
 * as bad input (exit 2, one line per problem, no stack trace), or stop at its runaway budget
 * (exit 1 with the budget message) — never an internal error, a stack trace or a hang.
 */
class ExperimentFuzzTest {
  static final int CASES = 1_000;
  static final long SEED = 20_261_130L;

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final JsonNodeFactory F = JsonNodeFactory.instance;
  private static final JsonNode[] ODD_VALUES = {
      F.numberNode(-1), F.numberNode(0), F.numberNode(1), F.numberNode(3), F.numberNode(Integer.MAX_VALUE),
      F.numberNode(Long.MAX_VALUE), F.numberNode(-9_223_372_036_854_775_808L), F.numberNode(1e300),
      F.numberNode(0.5), F.numberNode(-0.0), F.textNode(""), F.textNode("abc"), F.textNode("1ms"),
      F.textNode("-5us"), F.textNode("99999999999999999999s"), F.textNode("ticket"), F.textNode("cfs"),
      F.textNode("x86_64-kvm"), F.textNode("arm64-kvm"), F.textNode("ppc64-powervm"), F.textNode("s390x-kvm"),
      F.textNode("vm0"), F.textNode("\u00e9\u0000\u202e"), F.booleanNode(true), F.booleanNode(false),
      F.nullNode(), F.arrayNode(), F.objectNode(), F.arrayNode().add(0).add(0), F.textNode("[0, 1]"),
      F.textNode("2us"), F.textNode("1s"), F.numberNode(4096), F.numberNode(1025)};

  private static final String NOISE = "{}[]:-#&*!|>'\"%@`\t\n 0x";

  @TempDir
  Path temp;

  private static List<Path> seeds() throws IOException {
    try (Stream<Path> files = Files.list(Path.of("../examples/experiments"))) {
      return files.filter(p -> p.toString().endsWith(".yaml") && !p.getFileName().toString().startsWith("broken"))
          .sorted().toList();
    }
  }

  @Test
  @Timeout(value = 300, unit = TimeUnit.SECONDS)
  void mutatedExamples_runOrExit2_neverInternalErrorOrHang() throws IOException {
    List<Path> seeds = seeds();
    assertThat(seeds).hasSizeGreaterThanOrEqualTo(4);
    List<JsonNode> trees = new ArrayList<>();
    for (Path s : seeds) {
      trees.add(YAML.readTree(s.toFile()));
    }
    SplittableRandom random = new SplittableRandom(SEED);
    // One command line for all cases: plugins are discovered once (picocli resets the options).
    CommandLine cli = Lockvisor.commandLine(CliFixture.WITHOUT_BUILT_IN_REPRODUCTIONS);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    int ran = 0;
    int rejected = 0;
    int budget = 0;
    for (int i = 0; i < CASES; i++) {
      int which = random.nextInt(trees.size());
      String text;
      if (random.nextInt(10) < 2) {
        text = corruptText(Files.readString(seeds.get(which)), random);
      } else {
        JsonNode tree = trees.get(which).deepCopy();
        int mutations = 1 + random.nextInt(3);
        for (int m = 0; m < mutations; m++) {
          tree = mutate(tree, random);
        }
        text = YAML.writeValueAsString(tree);
      }
      Path file = temp.resolve("case-" + i + ".yaml");
      Files.writeString(file, text, StandardCharsets.UTF_8);
      out.getBuffer().setLength(0);
      err.getBuffer().setLength(0);
      int exit = cli.execute("run", file.toString(), "--max-events", "3000", "--max-wall", "5s");
      CliFixture.Run r = new CliFixture.Run(exit, out.toString(), err.toString());
      String context = "case " + i + " (seed " + SEED + ", from " + seeds.get(which).getFileName() + "):\n" + text
          + "\nexit " + r.exitCode() + "\n" + r.err();
      assertThat(r.err()).as(context).doesNotContain("internal error", "\tat ", "Exception:");
      switch (r.exitCode()) {
        case 0 -> ran++;
        case 2 -> {
          rejected++;
          assertThat(r.errLines()).as(context).isNotEmpty().allSatisfy(line -> assertThat(line).startsWith("lockvisor: "));
        }
        case 1 -> {
          budget++;
          assertThat(r.errLines()).as(context).singleElement().asString().containsPattern("budget of .* exceeded");
        }
        default -> throw new AssertionError("unexpected exit " + r.exitCode() + " for " + context);
      }
    }
    System.out.printf("fuzz: %d cases: %d ran, %d rejected with exit 2, %d stopped by a budget%n", CASES, ran,
        rejected, budget);
    assertThat(ran).as("some mutants still run").isPositive();
    assertThat(rejected).as("some mutants are rejected").isPositive();
  }

  /** One structural mutation at a random node. */
  private static JsonNode mutate(JsonNode root, SplittableRandom random) {
    List<JsonNode> containers = new ArrayList<>();
    collect(root, containers);
    if (containers.isEmpty()) {
      return root;
    }
    JsonNode target = containers.get(random.nextInt(containers.size()));
    if (target instanceof ObjectNode o && o.size() > 0) {
      List<String> names = new ArrayList<>();
      o.fieldNames().forEachRemaining(names::add);
      String name = names.get(random.nextInt(names.size()));
      switch (random.nextInt(6)) {
        case 0 -> o.remove(name);
        case 1 -> o.set(name + (random.nextBoolean() ? "x" : "s"), o.remove(name));
        case 2 -> o.set("unknown-" + random.nextInt(100), ODD_VALUES[random.nextInt(ODD_VALUES.length)]);
        default -> o.set(name, ODD_VALUES[random.nextInt(ODD_VALUES.length)].deepCopy());
      }
    } else if (target instanceof ArrayNode a && a.size() > 0) {
      int i = random.nextInt(a.size());
      switch (random.nextInt(4)) {
        case 0 -> a.remove(i);
        case 1 -> a.add(a.get(i).deepCopy());
        case 2 -> a.removeAll();
        default -> a.set(i, ODD_VALUES[random.nextInt(ODD_VALUES.length)].deepCopy());
      }
    } else if (random.nextBoolean()) {
      return ODD_VALUES[random.nextInt(ODD_VALUES.length)].deepCopy();
    }
    return root;
  }

  private static void collect(JsonNode node, List<JsonNode> out) {
    if (node.isContainerNode()) {
      out.add(node);
      node.forEach(child -> collect(child, out));
    }
  }

  private static String corruptText(String text, SplittableRandom random) {
    StringBuilder sb = new StringBuilder(text);
    switch (random.nextInt(4)) {
      case 0 -> sb.setLength(random.nextInt(sb.length() + 1));
      case 1 -> {
        for (int k = 0; k < 1 + random.nextInt(8); k++) {
          sb.setCharAt(random.nextInt(sb.length()), NOISE.charAt(random.nextInt(NOISE.length())));
        }
      }
      case 2 -> sb.insert(random.nextInt(sb.length()), "\n  " + "z".repeat(random.nextInt(5)) + ": [\n");
      default -> {
        int from = random.nextInt(sb.length());
        sb.insert(random.nextInt(sb.length()), sb.substring(from, Math.min(sb.length(), from + 80)));
      }
    }
    return sb.toString();
  }
}

package org.lockvisor.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * The fuzz corpus generator: seeded mutations of the example experiments. Structural mutations
 * of the YAML tree (values replaced by values of other types, out of range or malformed; keys
 * deleted, renamed or added; lists emptied or duplicated) and corruptions of the text (truncated,
 * noise, stray brackets, duplicated spans); with {@code hostile}, also what issue 24 found:
 * sizes at the top of their option ranges, second documents, anchors and aliases (defined,
 * undefined, exponential), deep nesting, NUL and control characters. The same seed gives the
 * same corpus.
 */
final class ExperimentMutator {

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
  /** Sizes at the top of the built-in plugins' option ranges (numjobs, iodepth, groups, fds, streams). */
  private static final JsonNode[] LARGE_VALUES = {
      F.numberNode(4096), F.numberNode(65536), F.numberNode(100_000), F.numberNode(1000), F.numberNode(32768),
      F.numberNode(1_000_000), F.textNode("1e308"), F.numberNode(1e308)};
  private static final String NOISE = "{}[]:-#&*!|>'\"%@`\t\n 0x";

  private final List<Path> seeds;
  private final List<String> texts = new ArrayList<>();
  private final List<JsonNode> trees = new ArrayList<>();
  private final SplittableRandom random;
  private final boolean hostile;

  /** A generator over {@code seeds} (YAML files), deterministic for {@code seed}. */
  ExperimentMutator(List<Path> seeds, long seed, boolean hostile) {
    this.seeds = List.copyOf(seeds);
    this.random = new SplittableRandom(seed);
    this.hostile = hostile;
    try {
      for (Path s : seeds) {
        texts.add(Files.readString(s));
        trees.add(YAML.readTree(s.toFile()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The example experiments, except the deliberately broken plugin's. */
  static List<Path> exampleSeeds() {
    try (Stream<Path> files = Files.list(Path.of("../examples/experiments"))) {
      return files.filter(p -> p.toString().endsWith(".yaml") && !p.getFileName().toString().startsWith("broken"))
          .sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** One mutant: the seed file it came from and its text. */
  record Mutant(Path from, String text) {}

  /** The next mutant. */
  Mutant next() {
    int which = random.nextInt(trees.size());
    String text;
    if (random.nextInt(10) < 2) {
      text = corruptText(texts.get(which));
    } else {
      JsonNode tree = trees.get(which).deepCopy();
      int mutations = 1 + random.nextInt(3);
      for (int m = 0; m < mutations; m++) {
        tree = mutate(tree);
      }
      try {
        text = YAML.writeValueAsString(tree);
      } catch (JsonProcessingException e) {
        throw new IllegalStateException(e);
      }
    }
    if (hostile && random.nextInt(3) == 0) {
      text = hostileText(text);
    }
    return new Mutant(seeds.get(which), text);
  }

  /** One structural mutation at a random node. */
  private JsonNode mutate(JsonNode root) {
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
        case 2 -> o.set("unknown-" + random.nextInt(100), odd());
        default -> o.set(name, odd());
      }
    } else if (target instanceof ArrayNode a && a.size() > 0) {
      int i = random.nextInt(a.size());
      switch (random.nextInt(4)) {
        case 0 -> a.remove(i);
        case 1 -> a.add(a.get(i).deepCopy());
        case 2 -> a.removeAll();
        default -> a.set(i, odd());
      }
    } else if (random.nextBoolean()) {
      return odd();
    }
    return root;
  }

  private JsonNode odd() {
    if (hostile && random.nextInt(4) == 0) {
      return LARGE_VALUES[random.nextInt(LARGE_VALUES.length)].deepCopy();
    }
    return ODD_VALUES[random.nextInt(ODD_VALUES.length)].deepCopy();
  }

  private static void collect(JsonNode node, List<JsonNode> out) {
    if (node.isContainerNode()) {
      out.add(node);
      node.forEach(child -> collect(child, out));
    }
  }

  private String corruptText(String text) {
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

  /** What issue 24's hostile users wrote, added to a mutant's text. */
  private String hostileText(String text) {
    return switch (random.nextInt(8)) {
      case 0 -> text + "\n---\n" + (random.nextBoolean() ? "vms: []\n" : "vms: [ {\n");
      case 1 -> text + "\nextra: &anchor [1, 2, 3]\nagain: *anchor\n";
      case 2 -> text + "\nrefers: *nowhere\n";
      case 3 -> {
        StringBuilder lol = new StringBuilder(text).append("\nl0: &l0 [x, x, x, x, x, x, x, x, x, x]\n");
        for (int i = 1; i < 8; i++) {
          lol.append("l").append(i).append(": &l").append(i).append(" [")
              .append(String.join(", ", java.util.Collections.nCopies(10, "*l" + (i - 1)))).append("]\n");
        }
        yield lol.toString();
      }
      case 4 -> text + "\ndeep: " + "[".repeat(50 + random.nextInt(200)) + "]".repeat(10) + "\n";
      case 5 -> {
        int at = random.nextInt(text.length() + 1);
        yield text.substring(0, at) + (random.nextBoolean() ? "\u0000" : "\u0007\u001b") + text.substring(at);
      }
      case 6 -> text + "\n" + "k".repeat(1 + random.nextInt(5000)) + ": " + "v".repeat(random.nextInt(5000)) + "\n";
      default -> "--- !!map\n" + text.replace("vms:", "vms: !!seq");
    };
  }
}

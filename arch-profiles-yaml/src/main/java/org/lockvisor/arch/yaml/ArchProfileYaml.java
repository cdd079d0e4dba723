package org.lockvisor.arch.yaml;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeType;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSortedMap;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SortedMap;
import java.util.function.Supplier;
import org.lockvisor.arch.catalog.ArchProfiles;
import org.lockvisor.arch.catalog.ProfileException;
import org.lockvisor.arch.catalog.ProfileException.Problem;
import org.lockvisor.core.plugin.DidYouMean;
import org.lockvisor.arch.spi.ArchProfile;
import org.lockvisor.arch.spi.ArchProfileFactory;
import org.lockvisor.arch.spi.Cost;
import org.lockvisor.arch.spi.CostKey;
import org.lockvisor.arch.spi.CostTable;
import org.lockvisor.arch.spi.HypervisorBehaviour;
import org.lockvisor.arch.spi.HypervisorBehaviour.SpinTrap;
import org.lockvisor.arch.spi.Topology;

/**
 * Loads an arch profile from YAML so users describe new hardware without code. A file names the
 * profile it {@code extends} and overrides any topology, cost or hypervisor field:
 *
 * <pre>
 * name: my-arm64-server
 * extends: arm64-kvm
 * topology: {sockets: 2, coresPerSocket: 32, threadsPerCore: 1}
 * costs:
 *   CACHELINE_XFER_REMOTE: {value: 250, confidence: E, source: "estimate 200-400"}
 *   ATOMIC_RMW: 8                        # bare number: tagged [E], source "&lt;file&gt;: user override"
 * hypervisor:
 *   vcpuPreempted: NONE
 *   spinTrap: {directedYield: false}
 * </pre>
 *
 * <p>Strict: unknown keys, wrong types and out-of-range values are errors, all collected and
 * thrown at once as a {@link ProfileException} with the YAML path, the value in brackets and a
 * "did you mean". The tree is walked by hand, so no Jackson binding exception reaches the user;
 * range rules are those of the SPI records, whose messages are reported at the field's path.
 */
public final class ArchProfileYaml {

  private static final ImmutableList<String> TOP_KEYS =
      ImmutableList.of("name", "summary", "description", "extends", "topology", "costs", "hypervisor");
  private static final ImmutableList<String> TOPOLOGY_KEYS =
      ImmutableList.of("sockets", "coresPerSocket", "threadsPerCore");
  private static final ImmutableList<String> COST_KEYS = ImmutableList.of("value", "confidence", "source", "unit");
  private static final ImmutableList<String> HYPERVISOR_KEYS = ImmutableList.of("vcpuPreempted", "spinTrap",
      "stealTime", "notifyPath", "guestIpiExits", "postedInterrupts", "hostHz", "guestHz", "dispatchWindowNs",
      "entitlement");
  private static final ImmutableList<String> SPIN_TRAP_KEYS =
      ImmutableList.of("enabled", "trigger", "gapCycles", "growFactor", "directedYield");
  private static final ImmutableList<String> COST_KEY_NAMES =
      Arrays.stream(CostKey.values()).map(Enum::name).collect(ImmutableList.toImmutableList());

  private static final ObjectMapper YAML = new ObjectMapper(
      YAMLFactory.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build());

  private ArchProfileYaml() {}

  /** Loads a profile that extends one of the profiles found by {@link ArchProfiles#discover()}. */
  public static ArchProfile load(Path file) throws ProfileException {
    ImmutableSortedMap<String, ArchProfile> bases = ArchProfiles.discover().values().stream()
        .map(ArchProfileFactory::create)
        .collect(ImmutableSortedMap.toImmutableSortedMap(String::compareTo, ArchProfile::name, p -> p));
    return load(file, bases);
  }

  /** Loads a profile that extends one of {@code bases} (by name). */
  public static ArchProfile load(Path file, SortedMap<String, ArchProfile> bases) throws ProfileException {
    String text;
    try {
      text = Files.readString(file);
    } catch (NoSuchFileException e) {
      throw new ProfileException(file.toString(), List.of(new Problem("<file>", "no such file [" + file + "]")));
    } catch (IOException e) {
      throw new ProfileException(file.toString(), List.of(new Problem("<file>", "cannot read [" + file + "]: " + e)));
    }
    return parse(text, file.toString(), bases);
  }

  /** Parses YAML text; {@code origin} names it in messages and in the sources of bare-number overrides. */
  public static ArchProfile parse(String yaml, String origin, SortedMap<String, ArchProfile> bases)
      throws ProfileException {
    JsonNode root;
    try {
      root = YAML.readTree(yaml);
    } catch (JsonProcessingException e) {
      JsonLocation at = e.getLocation();
      String where = at == null ? "<file>" : "<file> line " + at.getLineNr() + ", column " + at.getColumnNr();
      throw new ProfileException(origin, List.of(new Problem(where, "not valid YAML: " + e.getOriginalMessage())));
    }
    return new Reader(origin, bases).read(root);
  }

  /** One pass over one document; collects problems instead of stopping at the first. */
  private static final class Reader {
    private final String origin;
    private final SortedMap<String, ArchProfile> bases;
    private final List<Problem> problems = new ArrayList<>();

    Reader(String origin, SortedMap<String, ArchProfile> bases) {
      this.origin = origin;
      this.bases = bases;
    }

    ArchProfile read(JsonNode root) throws ProfileException {
      if (root == null || root.isMissingNode() || root.isNull()) {
        throw new ProfileException(origin, List.of(new Problem("<file>", "empty profile; needs at least [name, extends]")));
      }
      if (!root.isObject()) {
        throw new ProfileException(origin, List.of(new Problem("<file>", "expected a mapping, got " + describe(root))));
      }
      checkKeys(root, "", TOP_KEYS);

      String name = requiredText(root, "name");
      String extendsName = requiredText(root, "extends");
      ArchProfile base = extendsName == null ? null : resolveBase(extendsName);
      String summary = optionalText(root, "summary");
      String description = optionalText(root, "description");

      Topology topology = base == null ? null : base.topology();
      JsonNode topologyNode = section(root, "topology");
      CostTable costs = base == null ? null : base.costs();
      JsonNode costsNode = section(root, "costs");
      HypervisorBehaviour hypervisor = base == null ? null : base.hypervisor();
      JsonNode hypervisorNode = section(root, "hypervisor");

      // Sections are read in this order even without a base, so one run reports every problem.
      if (topologyNode != null) {
        Topology read = readTopology(topologyNode, base != null ? base.topology() : new Topology(1, 1, 1));
        topology = base != null ? read : null;
      }
      List<Cost> costOverrides = costsNode == null ? List.of() : readCosts(costsNode);
      if (base != null && !costOverrides.isEmpty()) {
        costs = attempt("costs", () -> base.costs().with(costOverrides));
      }
      if (hypervisorNode != null) {
        hypervisor = readHypervisor(hypervisorNode, base == null ? null : base.hypervisor());
      }
      if (!problems.isEmpty()) {
        throw new ProfileException(origin, problems);
      }
      Topology t = topology;
      CostTable c = costs;
      HypervisorBehaviour h = hypervisor;
      ArchProfile profile = attempt("name", () -> new ArchProfile(name,
          summary != null ? summary : base.summary() + " (" + name + ": overrides from " + origin + ")",
          description != null ? description : base.description(), t, c, h,
          // a profile extending another is that architecture: its symbols (KernelSymbols) come along
          base != null ? base.symbols() : org.lockvisor.arch.spi.KernelSymbols.X86_64));
      if (!problems.isEmpty()) {
        throw new ProfileException(origin, problems);
      }
      return profile;
    }

    private ArchProfile resolveBase(String extendsName) {
      ArchProfile base = bases.get(extendsName);
      if (base == null) {
        problem("extends", DidYouMean.unknownMessage("arch profile", extendsName, bases.keySet()));
      }
      return base;
    }

    private Topology readTopology(JsonNode node, Topology base) {
      checkKeys(node, "topology", TOPOLOGY_KEYS);
      int sockets = intField(node, "topology", "sockets", 1, Topology.MAX_CPUS, base.sockets());
      int cores = intField(node, "topology", "coresPerSocket", 1, Topology.MAX_CPUS, base.coresPerSocket());
      int threads = intField(node, "topology", "threadsPerCore", 1, Topology.MAX_CPUS, base.threadsPerCore());
      return attempt("topology", () -> new Topology(sockets, cores, threads));
    }

    private List<Cost> readCosts(JsonNode node) {
      List<Cost> out = new ArrayList<>();
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        String path = "costs." + e.getKey();
        CostKey key;
        try {
          key = CostKey.valueOf(e.getKey());
        } catch (IllegalArgumentException unknown) {
          problem(path, "unknown cost key [" + e.getKey() + "]" + hint(e.getKey(), COST_KEY_NAMES)
              + "; see docs/plugins for the keys and their units");
          continue;
        }
        JsonNode v = e.getValue();
        if (v.isNumber()) {
          // A bare number is an override without a source: keep the file as its provenance.
          Cost cost = attempt(path, () -> Cost.of(key, v.doubleValue(), Cost.Confidence.E,
              origin + ": user override, no source given"));
          add(out, cost);
        } else if (v.isObject()) {
          checkKeys(v, path, COST_KEYS);
          Double value = null;
          JsonNode valueNode = v.get("value");
          if (valueNode == null) {
            problem(path, "missing [value]");
          } else if (!valueNode.isNumber()) {
            problem(path + ".value", "expected a number, got " + describe(valueNode));
          } else {
            value = valueNode.doubleValue();
          }
          Cost.Confidence confidence = enumField(v, path, "confidence", Cost.Confidence.class, null);
          if (confidence == null && v.get("confidence") == null) {
            problem(path, "missing [confidence]; allowed: " + Arrays.toString(Cost.Confidence.values()));
          }
          String source = null;
          JsonNode sourceNode = v.get("source");
          if (sourceNode == null) {
            problem(path, "missing [source] (a file, URL, paper, or \"estimate <range>\")");
          } else if (!sourceNode.isTextual() || sourceNode.asText().isBlank()) {
            problem(path + ".source", "expected non-blank text, got " + describe(sourceNode));
          } else {
            source = sourceNode.asText();
          }
          JsonNode unitNode = v.get("unit");
          if (unitNode != null && !(unitNode.isTextual() && (unitNode.asText().equals(key.unit().symbol())
              || unitNode.asText().equals(key.unit().name())))) {
            problem(path + ".unit", "unit of " + key + " is [" + key.unit().symbol() + "], got " + describe(unitNode));
          }
          if (value != null && confidence != null && source != null) {
            double val = value;
            String src = source;
            add(out, attempt(path, () -> Cost.of(key, val, confidence, src)));
          }
        } else {
          problem(path, "expected a number or {value, confidence, source}, got " + describe(v));
        }
      }
      return out;
    }

    private HypervisorBehaviour readHypervisor(JsonNode node, HypervisorBehaviour base) {
      checkKeys(node, "hypervisor", HYPERVISOR_KEYS);
      String p = "hypervisor";
      if (base == null) {
        // Without a base there is nothing to override: still type-check every field given.
        enumField(node, p, "vcpuPreempted", HypervisorBehaviour.VcpuPreemptedSemantics.class, null);
        enumField(node, p, "notifyPath", HypervisorBehaviour.NotifyPath.class, null);
        boolField(node, p, "stealTime", false);
        boolField(node, p, "guestIpiExits", false);
        boolField(node, p, "postedInterrupts", false);
        intField(node, p, "hostHz", 0, HypervisorBehaviour.MAX_HZ, 0);
        intField(node, p, "guestHz", 1, HypervisorBehaviour.MAX_HZ, 1);
        longField(node, p, "dispatchWindowNs", 0, 0);
        doubleField(node, p, "entitlement", 1);
        JsonNode st = section(node, "spinTrap", p + ".spinTrap");
        if (st != null) {
          readSpinTrap(st, SpinTrap.NONE);
        }
        return null;
      }
      HypervisorBehaviour.Builder b = base.toBuilder()
          .vcpuPreempted(enumField(node, p, "vcpuPreempted", HypervisorBehaviour.VcpuPreemptedSemantics.class,
              base.vcpuPreempted()))
          .notifyPath(enumField(node, p, "notifyPath", HypervisorBehaviour.NotifyPath.class, base.notifyPath()))
          .stealTime(boolField(node, p, "stealTime", base.stealTime()))
          .guestIpiExits(boolField(node, p, "guestIpiExits", base.guestIpiExits()))
          .postedInterrupts(boolField(node, p, "postedInterrupts", base.postedInterrupts()))
          .hostHz(intField(node, p, "hostHz", 0, HypervisorBehaviour.MAX_HZ, base.hostHz()))
          .guestHz(intField(node, p, "guestHz", 1, HypervisorBehaviour.MAX_HZ, base.guestHz()))
          .dispatchWindowNs(longField(node, p, "dispatchWindowNs", 0, base.dispatchWindowNs()))
          .entitlement(doubleField(node, p, "entitlement", base.entitlement()));
      JsonNode st = section(node, "spinTrap", p + ".spinTrap");
      if (st != null) {
        SpinTrap trap = readSpinTrap(st, base.spinTrap());
        if (trap != null) {
          b.spinTrap(trap);
        }
      }
      return attempt(p, b::build);
    }

    private SpinTrap readSpinTrap(JsonNode node, SpinTrap base) {
      String p = "hypervisor.spinTrap";
      checkKeys(node, p, SPIN_TRAP_KEYS);
      boolean enabled = boolField(node, p, "enabled", base.enabled());
      SpinTrap.Trigger trigger = enumField(node, p, "trigger", SpinTrap.Trigger.class, base.trigger());
      int gap = intField(node, p, "gapCycles", 0, Integer.MAX_VALUE, base.gapCycles());
      int grow = intField(node, p, "growFactor", 1, Integer.MAX_VALUE, base.growFactor());
      boolean directedYield = boolField(node, p, "directedYield", base.directedYield());
      return attempt(p, () -> new SpinTrap(enabled, trigger, gap, grow, directedYield));
    }

    // ---- field readers: on a problem they record it and return the fallback, so reading goes on.

    private String requiredText(JsonNode node, String key) {
      JsonNode v = node.get(key);
      if (v == null || v.isNull()) {
        problem(key, "missing; required");
        return null;
      }
      if (!v.isTextual()) {
        problem(key, "expected text, got " + describe(v));
        return null;
      }
      return v.asText();
    }

    private String optionalText(JsonNode node, String key) {
      JsonNode v = node.get(key);
      if (v == null) {
        return null;
      }
      if (!v.isTextual() || v.asText().isBlank()) {
        problem(key, "expected non-blank text, got " + describe(v));
        return null;
      }
      return v.asText();
    }

    private JsonNode section(JsonNode parent, String key) {
      return section(parent, key, key);
    }

    private JsonNode section(JsonNode parent, String key, String path) {
      JsonNode v = parent.get(key);
      if (v == null) {
        return null;
      }
      if (!v.isObject()) {
        problem(path, "expected a mapping, got " + describe(v));
        return null;
      }
      return v;
    }

    private int intField(JsonNode node, String parent, String key, long min, long max, int fallback) {
      return (int) integral(node, parent, key, min, max, fallback);
    }

    private long longField(JsonNode node, String parent, String key, long min, long fallback) {
      return integral(node, parent, key, min, Long.MAX_VALUE, fallback);
    }

    private long integral(JsonNode node, String parent, String key, long min, long max, long fallback) {
      JsonNode v = node.get(key);
      if (v == null) {
        return fallback;
      }
      String path = parent + "." + key;
      if (!v.isNumber() || v.doubleValue() != Math.rint(v.doubleValue()) || !v.canConvertToLong()) {
        problem(path, "expected a whole number, got " + describe(v));
        return fallback;
      }
      long n = v.longValue();
      if (n < min || n > max) {
        problem(path, "out of range [" + n + "]; allowed " + (max == Long.MAX_VALUE ? ">= " + min : min + ".." + max));
        return fallback;
      }
      return n;
    }

    private double doubleField(JsonNode node, String parent, String key, double fallback) {
      JsonNode v = node.get(key);
      if (v == null) {
        return fallback;
      }
      if (!v.isNumber()) {
        problem(parent + "." + key, "expected a number, got " + describe(v));
        return fallback;
      }
      return v.doubleValue();
    }

    private boolean boolField(JsonNode node, String parent, String key, boolean fallback) {
      JsonNode v = node.get(key);
      if (v == null) {
        return fallback;
      }
      if (!v.isBoolean()) {
        problem(parent + "." + key, "expected true or false, got " + describe(v));
        return fallback;
      }
      return v.booleanValue();
    }

    private <E extends Enum<E>> E enumField(JsonNode node, String parent, String key, Class<E> type, E fallback) {
      JsonNode v = node.get(key);
      if (v == null) {
        return fallback;
      }
      String path = parent + "." + key;
      List<String> allowed = Arrays.stream(type.getEnumConstants()).map(Enum::name).toList();
      if (!v.isTextual()) {
        problem(path, "expected one of " + allowed + ", got " + describe(v));
        return fallback;
      }
      for (E e : type.getEnumConstants()) {
        if (e.name().equals(v.asText())) {
          return e;
        }
      }
      problem(path, "unknown value [" + v.asText() + "]" + hint(v.asText(), allowed) + "; allowed: " + allowed);
      return fallback;
    }

    private void checkKeys(JsonNode node, String path, List<String> known) {
      for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
        String k = it.next();
        if (!known.contains(k)) {
          problem(path.isEmpty() ? k : path + "." + k,
              "unknown key [" + k + "]" + hint(k, known) + "; known: " + known);
        }
      }
    }

    /** Runs an SPI constructor; its validation message becomes a problem at {@code path}. */
    private <T> T attempt(String path, Supplier<T> construct) {
      try {
        return construct.get();
      } catch (IllegalArgumentException | NullPointerException e) {
        problem(path, String.valueOf(e.getMessage()));
        return null;
      }
    }

    private static <T> void add(List<T> list, T item) {
      if (item != null) {
        list.add(item);
      }
    }

    private void problem(String path, String message) {
      problems.add(new Problem(path, message));
    }

    private static String describe(JsonNode v) {
      JsonNodeType t = v.getNodeType();
      String kind = switch (t) {
        case STRING -> "text";
        case NUMBER -> "number";
        case BOOLEAN -> "boolean";
        case OBJECT -> "mapping";
        case ARRAY -> "list";
        case NULL -> "null";
        default -> t.name().toLowerCase(Locale.ROOT);
      };
      String shown = v.isContainerNode() ? "" : " [" + (v.isTextual() ? v.asText() : v.toString()) + "]";
      return kind + shown;
    }
  }

  private static String hint(String input, java.util.Collection<String> known) {
    return DidYouMean.hint(input, known);
  }
}

package org.lockvisor.experiment.model;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.google.common.collect.ImmutableSortedMap;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.lockvisor.core.plugin.DidYouMean;

/**
 * YAML bound to the {@link Experiment} model, strictly: syntax errors carry their line and
 * column, unknown keys are errors with "did you mean", wrong types name the expected type, and
 * every problem is reported at once with its path ({@code vms[0].locks.spinlock}). The same tree
 * form serves {@code --set path=value} overrides and named variants.
 *
 * <pre>
 * name: locktorture-qspinlock
 * arch: x86_64-kvm
 * seed: 42
 * warmup: 5ms
 * duration: 50ms
 * host: {cpus: 4, scheduler: cfs}
 * vms:
 *   - name: vm0
 *     vcpus: 8
 *     pinning: [0, 1, 2, 3, 0, 1, 2, 3]
 *     locks: {spinlock: pv-qspinlock, vcpu-is-preempted: true,
 *             mutex: {type: mutex-owner, options: {optimistic-spin: false}}}
 *     kernel: {ttwu-queue: any-remote, ttwu-waits-on-cpu: true}
 *     workloads:
 *       - {name: torture, type: locktorture, options: {torture-type: spin_lock}}
 * </pre>
 */
public final class ExperimentYaml {

  /** Files larger than this are refused before parsing (an experiment is a page of text). */
  public static final int MAX_BYTES = 1 << 20;

  private static final YAMLMapper MAPPER = YAMLMapper.builder(
          YAMLFactory.builder().disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
              .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES).build())
      .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
      .build();

  static final Set<String> TOP_KEYS = Set.of("name", "description", "arch", "seed", "warmup", "duration", "host",
      "vms", "background", "variants", "replications", "sweep", "max-duration", "done-check-interval", "hypervisor");
  static final Set<String> HOST_KEYS = Set.of("cpus", "scheduler", "scheduler-options", "preemptible",
      "exclusive-pinning", "locks", "kernel");
  static final Set<String> VM_KEYS = Set.of("name", "vcpus", "pinning", "scheduler", "scheduler-options",
      "preemptible", "locks", "devices", "workloads", "kernel");
  static final Set<String> LOCK_KEYS = Set.of("spinlock", "mutex", "rwsem", "rwlock", "vcpu-is-preempted");
  /** Keys of one lock algorithm in its long form ({@code mutex: {type: mutex-owner, options: {...}}}). */
  static final Set<String> LOCK_ALGORITHM_KEYS = Set.of("type", "options");
  static final Set<String> HOST_KERNEL_KEYS = Set.of("ttwu-queue", "ttwu-waits-on-cpu", "irq-time-accounting");
  static final Set<String> VM_KERNEL_KEYS = Set.of("ttwu-queue", "ttwu-waits-on-cpu", "resched-ipi",
      "steal-time-accounting");
  static final Set<String> COMPONENT_KEYS = Set.of("name", "type", "options");
  static final Set<String> BACKGROUND_KEYS = Set.of("host-threads", "vms");
  static final Set<String> BACKGROUND_VM_KEYS = Set.of("name", "vcpus", "pinning");

  private ExperimentYaml() {}

  // -------------------------------------------------------------------------------------------
  // Text <-> tree.

  /**
   * The YAML text as a tree.
   *
   * @throws InvalidExperimentException for empty input, binary content or a syntax error
   */
  public static JsonNode parse(String source, byte[] content) {
    if (content.length > MAX_BYTES) {
      throw invalid(source, "", "file is " + content.length + " bytes; an experiment file is at most "
          + MAX_BYTES + " bytes");
    }
    for (byte b : content) {
      if (b == 0) {
        throw invalid(source, "", "not a YAML text file (contains NUL bytes)");
      }
    }
    String text;
    try {
      text = java.nio.charset.StandardCharsets.UTF_8.newDecoder()
          .decode(java.nio.ByteBuffer.wrap(content)).toString();
    } catch (java.nio.charset.CharacterCodingException e) {
      throw invalid(source, "", "not a YAML text file (not valid UTF-8)");
    }
    return parse(source, text);
  }

  /** The YAML text as a tree; see {@link #parse(String, byte[])}. */
  public static JsonNode parse(String source, String text) {
    if (text.isBlank()) {
      throw invalid(source, "", "the file is empty; an experiment needs at least [vms]");
    }
    JsonNode tree;
    try {
      tree = YamlTree.read(MAPPER, text); // aliases expanded, one document, bounded size and depth
    } catch (YamlTree.YamlException e) {
      throw invalid(source, "", "YAML error" + e.where() + e.getMessage());
    } catch (JsonProcessingException e) {
      JsonLocation at = e.getLocation();
      String where = at == null ? "" : "line " + at.getLineNr() + ", column " + at.getColumnNr() + ": ";
      throw invalid(source, "", "YAML syntax error at " + where + syntaxMessage(e.getOriginalMessage()));
    }
    if (tree == null || tree.isMissingNode() || tree.isNull()) {
      throw invalid(source, "", "the file is empty; an experiment needs at least [vms]");
    }
    if (!tree.isObject()) {
      throw invalid(source, "", "expected a mapping of experiment keys at the top, got " + describe(tree));
    }
    return tree;
  }

  /**
   * SnakeYAML's message without its source excerpts: {@code while parsing a flow mapping (line 2,
   * column 7); expected ',' or '}', but got :}.
   */
  static String syntaxMessage(String message) {
    if (message == null) {
      return "";
    }
    if (message.startsWith("Expected a field name")) {
      // Jackson's words for a list or mapping used as a key, with SnakeYAML's event class in them
      return "a key must be a plain name, not a list or a mapping (YAML complex keys are not supported)";
    }
    message = SNAKEYAML_EVENT.matcher(message).replaceAll(r -> switch (r.group(1)) {
      case "SequenceStart" -> "a list";
      case "MappingStart" -> "a mapping";
      case "Scalar" -> "a value";
      default -> "[" + r.group(1).replaceAll("([a-z])([A-Z])", "$1 $2").toLowerCase(java.util.Locale.ROOT) + "]";
    });
    List<String> parts = new ArrayList<>();
    String[] lines = message.split("\\R");
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i].strip();
      Matcher at = Pattern.compile("in '[^']*', line (\\d+), column (\\d+):?").matcher(line);
      if (at.matches()) {
        if (!parts.isEmpty()) {
          parts.set(parts.size() - 1, parts.get(parts.size() - 1) + " (line " + at.group(1) + ", column "
              + at.group(2) + ")");
        }
        i += 2; // the excerpt and its caret
      } else if (!line.isEmpty()) {
        parts.add(line);
      }
    }
    return String.join("; ", parts);
  }

  /** SnakeYAML's event objects as Jackson prints them: {@code <org.yaml.snakeyaml.events.ScalarEvent(...)>}. */
  private static final Pattern SNAKEYAML_EVENT = Pattern.compile("<?org\\.yaml\\.snakeyaml\\.events\\.(\\w+?)Event(\\([^)]*\\))?>?");

  private static String firstLine(String message) {
    String m = message == null ? "" : message.strip();
    int nl = m.indexOf('\n');
    return nl < 0 ? m : m.substring(0, nl).strip();
  }

  /** The experiment in {@code text} (syntax and binding problems reported together). */
  public static Experiment read(String source, String text) {
    return bind(source, parse(source, text));
  }

  /** An experiment tree (e.g. a shipped file with {@code --set} values applied) as YAML text. */
  public static String writeTree(JsonNode tree) {
    try {
      return MAPPER.writeValueAsString(tree);
    } catch (JsonProcessingException ex) {
      throw new IllegalStateException("cannot write YAML", ex);
    }
  }

  /** The experiment as YAML text. */
  public static String write(Experiment e) {
    try {
      return MAPPER.writeValueAsString(toTree(e));
    } catch (JsonProcessingException ex) {
      throw new IllegalStateException("cannot write YAML", ex);
    }
  }

  // -------------------------------------------------------------------------------------------
  // Overrides.

  /** The longest {@code --set} path; an experiment's paths are a few dozen characters. */
  static final int MAX_PATH_LENGTH = 256;

  private static final Pattern SEGMENT = Pattern.compile("([a-zA-Z0-9_-]+)((?:\\[\\d+])*)");

  /**
   * Applies {@code path=value} to {@code tree}: the value is read as a YAML scalar or flow
   * collection ({@code 8}, {@code true}, {@code ticket}, {@code [0, 1]}); missing mappings on the
   * way are created; a list index may be at most the list's size (which appends).
   *
   * @return the problem, or null when applied
   */
  public static Problem set(ObjectNode tree, String path, String value) {
    if (path == null || path.isBlank()) {
      return new Problem("", "empty override path in [" + path + "=" + value + "]");
    }
    JsonNode parsedValue;
    try {
      parsedValue = value == null || value.isEmpty() ? JsonNodeFactory.instance.textNode("")
          : YamlTree.read(MAPPER, value);
      if (parsedValue == null || parsedValue.isMissingNode()) {
        parsedValue = JsonNodeFactory.instance.textNode(value);
      }
    } catch (JsonProcessingException e) {
      return new Problem(path, "cannot read value [" + Problem.echo(value) + "]: " + firstLine(e.getOriginalMessage()));
    } catch (YamlTree.YamlException e) {
      return new Problem(path, "cannot read value [" + Problem.echo(value) + "]: " + e.getMessage());
    }
    if (path.length() > MAX_PATH_LENGTH) {
      return new Problem(Problem.echo(path), "override path of " + path.length() + " characters; at most "
          + MAX_PATH_LENGTH);
    }
    String[] parts = path.split("\\.", -1);
    JsonNode current = tree;
    StringBuilder walked = new StringBuilder();
    for (int p = 0; p < parts.length; p++) {
      Matcher m = SEGMENT.matcher(parts[p]);
      if (!m.matches()) {
        return new Problem(path, "bad path segment [" + parts[p] + "]; expected key or key[index]");
      }
      String key = m.group(1);
      List<Integer> indexes = new ArrayList<>();
      Matcher idx = Pattern.compile("\\[(\\d+)]").matcher(m.group(2));
      while (idx.find()) {
        try {
          indexes.add(Integer.parseInt(idx.group(1)));
        } catch (NumberFormatException e) {
          return new Problem(path, "index [" + idx.group(1) + "] is too large");
        }
      }
      if (!current.isObject()) {
        return new Problem(walked.toString(), "cannot set [" + key + "] inside " + describe(current));
      }
      ObjectNode object = (ObjectNode) current;
      walked.append(walked.length() == 0 ? "" : ".").append(key);
      boolean last = p == parts.length - 1;
      if (indexes.isEmpty()) {
        if (last) {
          object.set(key, parsedValue);
          return null;
        }
        JsonNode next = object.get(key);
        if (next == null || next.isNull()) {
          next = object.putObject(key);
        }
        current = next;
        continue;
      }
      JsonNode list = object.get(key);
      if (list == null || list.isNull()) {
        list = object.putArray(key);
      }
      for (int i = 0; i < indexes.size(); i++) {
        int index = indexes.get(i);
        if (!list.isArray()) {
          return new Problem(walked.toString(), "is " + describe(list) + ", not a list");
        }
        ArrayNode array = (ArrayNode) list;
        if (index > array.size()) {
          return new Problem(walked + "[" + index + "]", "index [" + index + "] is out of range; the list has "
              + array.size() + " entries");
        }
        walked.append('[').append(index).append(']');
        boolean lastIndex = last && i == indexes.size() - 1;
        if (lastIndex) {
          if (index == array.size()) {
            array.add(parsedValue);
          } else {
            array.set(index, parsedValue);
          }
          return null;
        }
        if (index == array.size()) {
          array.add(i == indexes.size() - 1 ? JsonNodeFactory.instance.objectNode()
              : JsonNodeFactory.instance.arrayNode());
        }
        list = array.get(index);
      }
      current = list;
    }
    return null;
  }

  /** {@code base} with the overrides of variant {@code name} applied (the variants themselves dropped). */
  public static Experiment variant(Experiment base, String name) {
    Map<String, String> overrides = base.variants().get(name);
    if (overrides == null) {
      throw new InvalidExperimentException("", List.of(new Problem("variants", DidYouMean.unknownMessage(
          "variant", name, base.variants().keySet()))));
    }
    ObjectNode tree = toTree(base.withoutSweep());
    tree.remove("variants");
    return applied(tree, overrides, "variants." + name);
  }

  /**
   * One point of a sweep: {@code base} without its sweep and replications, with {@code overrides}
   * applied (its variants kept).
   */
  public static Experiment point(Experiment base, Map<String, String> overrides, String label) {
    return applied(toTree(base.withoutSweep()), overrides, label);
  }

  private static Experiment applied(ObjectNode tree, Map<String, String> overrides, String prefix) {
    List<Problem> problems = new ArrayList<>();
    overrides.forEach((path, value) -> {
      Problem p = set(tree, path, value);
      if (p != null) {
        problems.add(p);
      }
    });
    if (!problems.isEmpty()) {
      throw new InvalidExperimentException("", prefixed(prefix, problems));
    }
    try {
      return bind("", tree);
    } catch (InvalidExperimentException e) {
      throw new InvalidExperimentException("", prefixed(prefix, e.problems()));
    }
  }

  static List<Problem> prefixed(String prefix, List<Problem> problems) {
    List<Problem> out = new ArrayList<>();
    for (Problem p : problems) {
      out.add(new Problem(p.path().isEmpty() ? prefix : prefix + "." + p.path(), p.message()));
    }
    return out;
  }

  // -------------------------------------------------------------------------------------------
  // Tree -> model.

  /**
   * Binds a tree to the model, checking keys and types and then the structure ({@link
   * ExperimentValidator#structure}); plugins are checked by {@link ExperimentValidator#validate}.
   *
   * @throws InvalidExperimentException listing every problem
   */
  public static Experiment bind(String source, JsonNode tree) {
    Bound bound = bindLenient(tree);
    List<Problem> problems = new ArrayList<>(bound.problems());
    if (problems.isEmpty()) {
      problems.addAll(ExperimentValidator.structure(bound.experiment()));
    }
    if (!problems.isEmpty()) {
      throw new InvalidExperimentException(source, problems);
    }
    return bound.experiment();
  }

  /**
   * A tree bound as far as it goes: the model (with defaults where a value was unusable) and the
   * problems of keys and types, so a caller can still check plugin names in a broken file.
   */
  public record Bound(Experiment experiment, List<Problem> problems) {
    public Bound {
      problems = List.copyOf(problems);
    }
  }

  /** Binds keys and types only; see {@link Bound}. */
  public static Bound bindLenient(JsonNode tree) {
    Binder b = new Binder();
    Experiment e = b.experiment(tree);
    return new Bound(e == null ? new Experiment(null, null, null, 0, 0, 0, null, null, null, null, 1, null) : e,
        b.problems);
  }

  /** Reads typed values from a tree, collecting problems instead of stopping at the first. */
  private static final class Binder {
    final List<Problem> problems = new ArrayList<>();

    Experiment experiment(JsonNode root) {
      ObjectNode o = object(root, "");
      if (o == null) {
        return null;
      }
      keys(o, "", TOP_KEYS);
      if (!o.has("vms")) {
        problems.add(new Problem("vms", "missing; an experiment needs at least one VM"));
      }
      JsonNode d = o.get("duration");
      boolean untilDone = d != null && d.isTextual() && d.asText().strip().equals(Experiment.UNTIL_DONE);
      return new Experiment(
          string(o, "", "name", ""),
          string(o, "", "description", ""),
          string(o, "", "arch", Experiment.DEFAULT_ARCH),
          integer(o, "", "seed", Experiment.DEFAULT_SEED, Long.MIN_VALUE, Long.MAX_VALUE),
          duration(o, "", "warmup", Experiment.DEFAULT_WARMUP_NS),
          untilDone ? 0 : duration(o, "", "duration", Experiment.DEFAULT_DURATION_NS),
          host(o.get("host"), "host"),
          vms(o.get("vms"), "vms"),
          background(o.get("background"), "background"),
          variants(o.get("variants"), "variants"),
          (int) integer(o, "", "replications", 1, Integer.MIN_VALUE, Integer.MAX_VALUE),
          sweep(o.get("sweep"), "sweep"),
          untilDone,
          duration(o, "", "max-duration", Experiment.DEFAULT_MAX_DURATION_NS),
          duration(o, "", "done-check-interval", Experiment.DEFAULT_DONE_CHECK_INTERVAL_NS),
          hypervisor(o.get("hypervisor"), "hypervisor"));
    }

    /** The hypervisor section: known keys, scalar values (checked against the profile by the validator). */
    Map<String, String> hypervisor(JsonNode node, String path) {
      Map<String, String> settings = new LinkedHashMap<>();
      if (node == null || node.isNull()) {
        return settings;
      }
      ObjectNode o = object(node, path);
      if (o == null) {
        return settings;
      }
      keys(o, path, HypervisorSettings.KNOBS.keySet());
      o.fields().forEachRemaining(e -> {
        if (!HypervisorSettings.KNOBS.containsKey(e.getKey())) {
          return;
        }
        JsonNode v = e.getValue();
        if (v.isContainerNode() || v.isNull()) {
          problems.add(new Problem(join(path, e.getKey()), "expected a value, got " + describe(v)));
        } else {
          settings.put(e.getKey(), v.asText());
        }
      });
      return settings;
    }

    Map<String, List<String>> sweep(JsonNode node, String path) {
      Map<String, List<String>> sweep = new LinkedHashMap<>();
      if (node == null || node.isNull()) {
        return sweep;
      }
      ObjectNode o = object(node, path);
      if (o == null) {
        return sweep;
      }
      o.fields().forEachRemaining(e -> {
        String p = join(path, e.getKey());
        JsonNode values = e.getValue();
        if (!values.isArray()) {
          problems.add(new Problem(p, "expected a list of values to sweep, got " + describe(values)));
          return;
        }
        List<String> list = new ArrayList<>();
        for (int i = 0; i < values.size(); i++) {
          JsonNode v = values.get(i);
          if (v.isNull()) {
            problems.add(new Problem(p + "[" + i + "]", "has no value"));
          } else {
            list.add(v.isContainerNode() ? v.toString() : v.asText());
          }
        }
        sweep.put(e.getKey(), list);
      });
      return sweep;
    }

    HostSpec host(JsonNode node, String path) {
      if (node == null || node.isNull()) {
        return HostSpec.defaults();
      }
      ObjectNode o = object(node, path);
      if (o == null) {
        return HostSpec.defaults();
      }
      keys(o, path, HOST_KEYS);
      return new HostSpec(
          (int) integer(o, path, "cpus", 0, Integer.MIN_VALUE, Integer.MAX_VALUE),
          choice(o, path),
          bool(o, path, "preemptible", false),
          bool(o, path, "exclusive-pinning", false),
          locks(o.get("locks"), join(path, "locks")),
          kernel(o.get("kernel"), join(path, "kernel"), HOST_KERNEL_KEYS));
    }

    List<VmSpec> vms(JsonNode node, String path) {
      List<VmSpec> vms = new ArrayList<>();
      if (node == null) {
        return vms;
      }
      if (!node.isArray()) {
        problems.add(new Problem(path, "expected a list of VMs, got " + describe(node)));
        return vms;
      }
      for (int i = 0; i < node.size(); i++) {
        String p = path + "[" + i + "]";
        ObjectNode o = object(node.get(i), p);
        if (o == null) {
          continue;
        }
        keys(o, p, VM_KEYS);
        vms.add(new VmSpec(
            string(o, p, "name", "vm" + i),
            (int) integer(o, p, "vcpus", 1, Integer.MIN_VALUE, Integer.MAX_VALUE),
            intList(o.get("pinning"), join(p, "pinning")),
            choice(o, p),
            bool(o, p, "preemptible", false),
            locks(o.get("locks"), join(p, "locks")),
            components(o.get("devices"), join(p, "devices"), "dev"),
            components(o.get("workloads"), join(p, "workloads"), "wl"),
            kernel(o.get("kernel"), join(p, "kernel"), VM_KERNEL_KEYS)));
      }
      return vms;
    }

    LockChoices locks(JsonNode node, String path) {
      if (node == null || node.isNull()) {
        return LockChoices.defaults();
      }
      ObjectNode o = object(node, path);
      if (o == null) {
        return LockChoices.defaults();
      }
      keys(o, path, LOCK_KEYS);
      Map<String, String> spinlockOptions = new TreeMap<>();
      Map<String, String> mutexOptions = new TreeMap<>();
      Map<String, String> rwsemOptions = new TreeMap<>();
      Map<String, String> rwlockOptions = new TreeMap<>();
      return new LockChoices(
          lockAlgorithm(o, path, "spinlock", LockChoices.DEFAULT_SPINLOCK, spinlockOptions),
          lockAlgorithm(o, path, "mutex", LockChoices.DEFAULT_MUTEX, mutexOptions),
          lockAlgorithm(o, path, "rwsem", LockChoices.DEFAULT_RWSEM, rwsemOptions),
          bool(o, path, "vcpu-is-preempted", false),
          ImmutableSortedMap.copyOf(spinlockOptions), ImmutableSortedMap.copyOf(mutexOptions),
          ImmutableSortedMap.copyOf(rwsemOptions),
          // absent: the architecture's rwlock (LockChoices.rwlockFor)
          o.hasNonNull("rwlock") ? lockAlgorithm(o, path, "rwlock", LockChoices.DEFAULT_RWLOCK, rwlockOptions) : null,
          ImmutableSortedMap.copyOf(rwlockOptions));
    }

    /**
     * One lock algorithm: a plugin name (the shorthand), or {@code {type: NAME, options: {...}}};
     * the options go to {@code options}.
     */
    String lockAlgorithm(ObjectNode o, String path, String key, String dflt, Map<String, String> options) {
      JsonNode v = o.get(key);
      if (v == null || !v.isObject()) {
        return string(o, path, key, dflt);
      }
      String p = join(path, key);
      ObjectNode algorithm = (ObjectNode) v;
      keys(algorithm, p, LOCK_ALGORITHM_KEYS);
      if (!algorithm.hasNonNull("type")) {
        problems.add(new Problem(join(p, "type"), "is required with options; e.g. [" + key + ": {type: " + dflt
            + ", options: {...}}]"));
      }
      options.putAll(options(algorithm.get("options"), join(p, "options")));
      return string(algorithm, p, "type", dflt);
    }

    KernelSpec kernel(JsonNode node, String path, Set<String> known) {
      if (node == null || node.isNull()) {
        return KernelSpec.defaults();
      }
      ObjectNode o = object(node, path);
      if (o == null) {
        return KernelSpec.defaults();
      }
      keys(o, path, known);
      JsonNode steal = o.get("steal-time-accounting");
      return new KernelSpec(
          string(o, path, "ttwu-queue", KernelSpec.CROSS_LLC),
          bool(o, path, "ttwu-waits-on-cpu", false),
          bool(o, path, "resched-ipi", false),
          steal == null || steal.isNull() ? null : bool(o, path, "steal-time-accounting", false),
          bool(o, path, "irq-time-accounting", false));
    }

    List<ComponentSpec> components(JsonNode node, String path, String defaultPrefix) {
      List<ComponentSpec> list = new ArrayList<>();
      if (node == null || node.isNull()) {
        return list;
      }
      if (!node.isArray()) {
        problems.add(new Problem(path, "expected a list, got " + describe(node)));
        return list;
      }
      for (int i = 0; i < node.size(); i++) {
        String p = path + "[" + i + "]";
        ObjectNode o = object(node.get(i), p);
        if (o == null) {
          continue;
        }
        keys(o, p, COMPONENT_KEYS);
        if (!o.has("type")) {
          problems.add(new Problem(join(p, "type"), "missing; name the plugin, e.g. [type: locktorture]"));
        }
        String type = string(o, p, "type", "");
        list.add(new ComponentSpec(string(o, p, "name", type.isEmpty() ? defaultPrefix + i : type + i), type,
            options(o.get("options"), join(p, "options"))));
      }
      return list;
    }

    BackgroundSpec background(JsonNode node, String path) {
      if (node == null || node.isNull()) {
        return BackgroundSpec.none();
      }
      ObjectNode o = object(node, path);
      if (o == null) {
        return BackgroundSpec.none();
      }
      keys(o, path, BACKGROUND_KEYS);
      List<BackgroundSpec.BackgroundVm> vms = new ArrayList<>();
      JsonNode list = o.get("vms");
      String lp = join(path, "vms");
      if (list != null && !list.isNull()) {
        if (!list.isArray()) {
          problems.add(new Problem(lp, "expected a list of VMs, got " + describe(list)));
        } else {
          for (int i = 0; i < list.size(); i++) {
            String p = lp + "[" + i + "]";
            ObjectNode v = object(list.get(i), p);
            if (v == null) {
              continue;
            }
            keys(v, p, BACKGROUND_VM_KEYS);
            vms.add(new BackgroundSpec.BackgroundVm(string(v, p, "name", "bg" + i),
                (int) integer(v, p, "vcpus", 1, Integer.MIN_VALUE, Integer.MAX_VALUE),
                intList(v.get("pinning"), join(p, "pinning"))));
          }
        }
      }
      return new BackgroundSpec((int) integer(o, path, "host-threads", 0, Integer.MIN_VALUE, Integer.MAX_VALUE),
          vms);
    }

    Map<String, Map<String, String>> variants(JsonNode node, String path) {
      Map<String, Map<String, String>> variants = new TreeMap<>();
      if (node == null || node.isNull()) {
        return variants;
      }
      ObjectNode o = object(node, path);
      if (o == null) {
        return variants;
      }
      for (Iterator<Map.Entry<String, JsonNode>> it = o.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        String p = join(path, e.getKey());
        ObjectNode overrides = object(e.getValue(), p);
        if (overrides == null) {
          continue;
        }
        Map<String, String> values = new LinkedHashMap<>();
        overrides.fields().forEachRemaining(f -> {
          if (f.getValue().isContainerNode()) {
            values.put(f.getKey(), f.getValue().toString());
          } else if (f.getValue().isNull()) {
            problems.add(new Problem(p + "." + f.getKey(), "has no value"));
          } else {
            values.put(f.getKey(), f.getValue().asText());
          }
        });
        variants.put(e.getKey(), values);
      }
      return variants;
    }

    Choice choice(ObjectNode o, String path) {
      return new Choice(string(o, path, "scheduler", HostSpec.DEFAULT_SCHEDULER),
          options(o.get("scheduler-options"), join(path, "scheduler-options")));
    }

    Map<String, String> options(JsonNode node, String path) {
      Map<String, String> options = new TreeMap<>();
      if (node == null || node.isNull()) {
        return options;
      }
      ObjectNode o = object(node, path);
      if (o == null) {
        return options;
      }
      o.fields().forEachRemaining(e -> {
        JsonNode v = e.getValue();
        if (v.isValueNode() && !v.isNull()) {
          options.put(e.getKey(), v.asText());
        } else {
          problems.add(new Problem(join(path, e.getKey()), "expected a single value (string, number or boolean), got "
              + describe(v)));
        }
      });
      return options;
    }

    List<Integer> intList(JsonNode node, String path) {
      List<Integer> list = new ArrayList<>();
      if (node == null || node.isNull() || (node.isTextual() && node.asText().equals("none"))) {
        return list;
      }
      if (!node.isArray()) {
        problems.add(new Problem(path, "expected a list of CPU numbers (or [none]), got " + describe(node)));
        return list;
      }
      for (int i = 0; i < node.size(); i++) {
        JsonNode v = node.get(i);
        if (v.isIntegralNumber() && v.canConvertToInt()) {
          list.add(v.intValue());
        } else {
          problems.add(new Problem(path + "[" + i + "]", "expected a CPU number, got " + describe(v)));
        }
      }
      return list;
    }

    ObjectNode object(JsonNode node, String path) {
      if (node != null && node.isObject()) {
        return (ObjectNode) node;
      }
      problems.add(new Problem(path, "expected a mapping of keys, got " + describe(node)));
      return null;
    }

    void keys(ObjectNode o, String path, Set<String> known) {
      o.fieldNames().forEachRemaining(k -> {
        if (!known.contains(k)) {
          problems.add(new Problem(join(path, k), DidYouMean.unknownMessage("key", Problem.echo(k), known)));
        }
      });
    }

    String string(ObjectNode o, String path, String key, String dflt) {
      JsonNode v = o.get(key);
      if (v == null || v.isNull()) {
        return dflt;
      }
      if (v.isTextual()) {
        return v.asText();
      }
      problems.add(new Problem(join(path, key), "expected a name, got " + describe(v)));
      return dflt;
    }

    long integer(ObjectNode o, String path, String key, long dflt, long min, long max) {
      JsonNode v = o.get(key);
      if (v == null || v.isNull()) {
        return dflt;
      }
      if (v.isIntegralNumber() && v.canConvertToLong() && v.longValue() >= min && v.longValue() <= max) {
        return v.longValue();
      }
      if (v.isIntegralNumber()) {
        problems.add(new Problem(join(path, key), "[" + v.asText() + "] is too large; at most [" + max + "]"));
      } else {
        problems.add(new Problem(join(path, key), "expected a whole number, got " + describe(v)));
      }
      return dflt;
    }

    long duration(ObjectNode o, String path, String key, long dflt) {
      JsonNode v = o.get(key);
      if (v == null || v.isNull()) {
        return dflt;
      }
      if (v.isIntegralNumber() && v.canConvertToLong()) {
        return v.longValue();
      }
      long ns = v.isTextual() ? Durations.parse(v.asText()) : -1;
      if (ns < 0 && path.isEmpty() && key.equals("duration")) {
        // the measurement window may also be "until the workloads have finished"
        List<String> close = v.isTextual() ? DidYouMean.suggestions(v.asText().strip(), List.of(Experiment.UNTIL_DONE))
            : List.of();
        problems.add(new Problem(key, "expected a duration such as [10ms], [500us] or [2s], or ["
            + Experiment.UNTIL_DONE + "] to run until every workload has finished, got " + describe(v)
            + (close.isEmpty() ? "" : "; did you mean " + close + "?")));
        return dflt;
      }
      if (ns < 0) {
        problems.add(new Problem(join(path, key), "expected a duration such as [10ms], [500us] or [2s], got "
            + describe(v)));
        return dflt;
      }
      return ns;
    }

    boolean bool(ObjectNode o, String path, String key, boolean dflt) {
      JsonNode v = o.get(key);
      if (v == null || v.isNull()) {
        return dflt;
      }
      if (v.isBoolean()) {
        return v.booleanValue();
      }
      if (v.isTextual() && (v.asText().equals("true") || v.asText().equals("false"))) {
        return Boolean.parseBoolean(v.asText());
      }
      problems.add(new Problem(join(path, key), "expected [true] or [false], got " + describe(v)));
      return dflt;
    }
  }

  static String join(String path, String key) {
    return path.isEmpty() ? key : path + "." + key;
  }

  /** What a node is, with its value in brackets: {@code the number [8]}, {@code a list}. */
  static String describe(JsonNode node) {
    if (node == null || node.isNull() || node.isMissingNode()) {
      return "nothing";
    }
    if (node.isObject()) {
      return "a mapping";
    }
    if (node.isArray()) {
      return "a list";
    }
    if (node.isBoolean()) {
      return "the boolean [" + node.asText() + "]";
    }
    if (node.isNumber()) {
      return "the number [" + node.asText() + "]";
    }
    String text = node.asText();
    return "the text [" + (text.length() > 60 ? text.substring(0, 60) + "..." : text) + "]";
  }

  // -------------------------------------------------------------------------------------------
  // Model -> tree.

  /** The experiment as a tree of the YAML form (every value explicit). */
  public static ObjectNode toTree(Experiment e) {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    o.put("name", e.name());
    if (!e.description().isEmpty()) {
      o.put("description", e.description());
    }
    o.put("arch", e.arch());
    o.put("seed", e.seed());
    o.put("warmup", Durations.format(e.warmupNs()));
    o.put("duration", e.untilDone() ? Experiment.UNTIL_DONE : Durations.format(e.durationNs()));
    if (e.untilDone() || e.maxDurationNs() != Experiment.DEFAULT_MAX_DURATION_NS) {
      o.put("max-duration", Durations.format(e.maxDurationNs()));
    }
    if (e.untilDone() || e.doneCheckIntervalNs() != Experiment.DEFAULT_DONE_CHECK_INTERVAL_NS) {
      o.put("done-check-interval", Durations.format(e.doneCheckIntervalNs()));
    }
    ObjectNode host = o.putObject("host");
    host.put("cpus", e.host().cpus());
    choice(host, e.host().scheduler());
    host.put("preemptible", e.host().preemptible());
    host.put("exclusive-pinning", e.host().exclusivePinning());
    locks(host.putObject("locks"), e.host().locks());
    kernel(host.putObject("kernel"), e.host().kernel(), false);
    ArrayNode vms = o.putArray("vms");
    for (VmSpec vm : e.vms()) {
      ObjectNode v = vms.addObject();
      v.put("name", vm.name());
      v.put("vcpus", vm.vcpus());
      ArrayNode pinning = v.putArray("pinning");
      vm.pinning().forEach(pinning::add);
      choice(v, vm.scheduler());
      v.put("preemptible", vm.preemptible());
      locks(v.putObject("locks"), vm.locks());
      kernel(v.putObject("kernel"), vm.kernel(), true);
      components(v.putArray("devices"), vm.devices());
      components(v.putArray("workloads"), vm.workloads());
    }
    ObjectNode background = o.putObject("background");
    background.put("host-threads", e.background().hostThreads());
    ArrayNode bgVms = background.putArray("vms");
    for (BackgroundSpec.BackgroundVm vm : e.background().vms()) {
      ObjectNode v = bgVms.addObject();
      v.put("name", vm.name());
      v.put("vcpus", vm.vcpus());
      ArrayNode pinning = v.putArray("pinning");
      vm.pinning().forEach(pinning::add);
    }
    if (!e.variants().isEmpty()) {
      ObjectNode variants = o.putObject("variants");
      e.variants().forEach((name, overrides) -> {
        ObjectNode v = variants.putObject(name);
        overrides.forEach(v::put);
      });
    }
    if (e.replications() != 1) {
      o.put("replications", e.replications());
    }
    if (!e.hypervisor().isEmpty()) {
      ObjectNode hypervisor = o.putObject("hypervisor");
      e.hypervisor().forEach(hypervisor::put);
    }
    if (!e.sweep().isEmpty()) {
      ObjectNode sweep = o.putObject("sweep");
      e.sweep().forEach((path, values) -> {
        ArrayNode list = sweep.putArray(path);
        values.forEach(list::add);
      });
    }
    return o;
  }

  private static void choice(ObjectNode o, Choice c) {
    o.put("scheduler", c.name());
    ObjectNode options = o.putObject("scheduler-options");
    c.options().forEach(options::put);
  }

  private static void locks(ObjectNode o, LockChoices l) {
    lockAlgorithm(o, "spinlock", l.spinlock(), l.spinlockOptions());
    lockAlgorithm(o, "mutex", l.mutex(), l.mutexOptions());
    lockAlgorithm(o, "rwsem", l.rwsem(), l.rwsemOptions());
    if (l.rwlock() != null) {
      lockAlgorithm(o, "rwlock", l.rwlock(), l.rwlockOptions());
    }
    o.put("vcpu-is-preempted", l.vcpuIsPreempted());
  }

  /** The shorthand name, or the long form when options are given. */
  private static void lockAlgorithm(ObjectNode o, String key, String name, Map<String, String> options) {
    if (options.isEmpty()) {
      o.put(key, name);
      return;
    }
    ObjectNode algorithm = o.putObject(key);
    algorithm.put("type", name);
    ObjectNode values = algorithm.putObject("options");
    options.forEach(values::put);
  }

  private static void kernel(ObjectNode o, KernelSpec k, boolean guest) {
    o.put("ttwu-queue", k.ttwuQueue());
    o.put("ttwu-waits-on-cpu", k.ttwuWaitsOnCpu());
    if (guest) {
      o.put("resched-ipi", k.reschedIpi());
      if (k.stealTimeAccounting() != null) {
        o.put("steal-time-accounting", k.stealTimeAccounting());
      }
    }
    if (!guest && k.irqTimeAccounting()) {
      o.put("irq-time-accounting", true);
    }
  }

  private static void components(ArrayNode list, List<ComponentSpec> components) {
    for (ComponentSpec c : components) {
      ObjectNode n = list.addObject();
      n.put("name", c.name());
      n.put("type", c.type());
      ObjectNode options = n.putObject("options");
      c.options().forEach(options::put);
    }
  }

  private static InvalidExperimentException invalid(String source, String path, String message) {
    return new InvalidExperimentException(source, List.of(new Problem(path, message)));
  }
}

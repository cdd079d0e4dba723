package org.lockvisor.experiment.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.common.collect.ImmutableSortedMap;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.lockvisor.core.plugin.DidYouMean;

/**
 * Tree to model, strictly: reads typed values from the tree of the YAML form, collecting every
 * problem (unknown keys with "did you mean", wrong types naming the expected type, each with its
 * path such as {@code vms[0].locks.spinlock}) instead of stopping at the first. The known keys
 * are the schema in {@link ExperimentYaml}. One instance binds one tree.
 */
final class ExperimentBinder {

  /**
   * Binds a tree to the model, checking keys and types and then the structure ({@link
   * ExperimentValidator#structure}); plugins are checked by {@link ExperimentValidator#validate}.
   *
   * @throws InvalidExperimentException listing every problem
   */
  static Experiment bind(String source, JsonNode tree) {
    ExperimentYaml.Bound bound = bindLenient(tree);
    List<Problem> problems = new ArrayList<>(bound.problems());
    if (problems.isEmpty()) {
      problems.addAll(ExperimentValidator.structure(bound.experiment()));
    }
    if (!problems.isEmpty()) {
      throw new InvalidExperimentException(source, problems);
    }
    return bound.experiment();
  }

  /** Binds keys and types only; see {@link ExperimentYaml.Bound}. */
  static ExperimentYaml.Bound bindLenient(JsonNode tree) {
    ExperimentBinder b = new ExperimentBinder();
    Experiment e = b.experiment(tree);
    return new ExperimentYaml.Bound(
        e == null ? new Experiment(null, null, null, 0, 0, 0, null, null, null, null, 1, null) : e, b.problems);
  }

  private final List<Problem> problems = new ArrayList<>();

  private ExperimentBinder() {}

  Experiment experiment(JsonNode root) {
    ObjectNode o = object(root, "");
    if (o == null) {
      return null;
    }
    keys(o, "", ExperimentYaml.TOP_KEYS);
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
        hypervisor(o.get("hypervisor"), "hypervisor"),
        duration(o, "", "sample-interval", 0));
  }

  /** The hypervisor section: known keys, scalar values (checked against the profile by the validator). */
  Map<String, String> hypervisor(JsonNode node, String path) {
    Map<String, String> settings = new LinkedHashMap<>();
    if (node == null || node.isNull() || (node.isTextual() && node.asText().isEmpty())) {
      return settings; // "hypervisor:" with nothing after it: no settings, as when the key is left out
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
      } else if (v instanceof YamlTree.PlainFloat f && e.getKey().equals("kernel-era")) {
        settings.put(e.getKey(), f.text()); // kernel-era: 5.10 names the era [5.10], not the number 5.1
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
    keys(o, path, ExperimentYaml.HOST_KEYS);
    return new HostSpec(
        (int) integer(o, path, "cpus", 0, Integer.MIN_VALUE, Integer.MAX_VALUE),
        choice(o, path),
        bool(o, path, "preemptible", false),
        bool(o, path, "exclusive-pinning", false),
        locks(o.get("locks"), join(path, "locks")),
        kernel(o.get("kernel"), join(path, "kernel"), ExperimentYaml.HOST_KERNEL_KEYS));
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
      keys(o, p, ExperimentYaml.VM_KEYS);
      vms.add(new VmSpec(
          string(o, p, "name", "vm" + i),
          (int) integer(o, p, "vcpus", 1, Integer.MIN_VALUE, Integer.MAX_VALUE),
          intList(o.get("pinning"), join(p, "pinning")),
          choice(o, p),
          bool(o, p, "preemptible", false),
          locks(o.get("locks"), join(p, "locks")),
          components(o.get("devices"), join(p, "devices"), "dev"),
          components(o.get("workloads"), join(p, "workloads"), "wl"),
          kernel(o.get("kernel"), join(p, "kernel"), ExperimentYaml.VM_KERNEL_KEYS)));
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
    keys(o, path, ExperimentYaml.LOCK_KEYS);
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
    keys(algorithm, p, ExperimentYaml.LOCK_ALGORITHM_KEYS);
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
        bool(o, path, "irq-time-accounting", false),
        (int) integer(o, path, "threads-per-core", 1, Integer.MIN_VALUE, Integer.MAX_VALUE),
        o.hasNonNull("hz") ? (Integer) (int) integer(o, path, "hz", 0, Integer.MIN_VALUE, Integer.MAX_VALUE) : null);
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
      keys(o, p, ExperimentYaml.COMPONENT_KEYS);
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
    keys(o, path, ExperimentYaml.BACKGROUND_KEYS);
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
          keys(v, p, ExperimentYaml.BACKGROUND_VM_KEYS);
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
      problems.add(new Problem(key, "expected a duration such as [10ms], [500us] or [2s], or ["
          + Experiment.UNTIL_DONE + "] to run until every workload has finished, got " + describe(v)
          + (v.isTextual() ? DidYouMean.hint(v.asText().strip(), List.of(Experiment.UNTIL_DONE)) : "")));
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
    if (text.isEmpty()) {
      return "nothing (the key has no value)";
    }
    return "the text [" + (text.length() > 60 ? text.substring(0, 60) + "..." : text) + "]";
  }
}

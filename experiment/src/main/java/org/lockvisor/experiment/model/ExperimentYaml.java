package org.lockvisor.experiment.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;
import java.util.Set;

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
 *
 * <p>This class is the front door and the schema (the known keys of each section); the work is
 * cut along its seams: text to tree ({@link ExperimentYamlParser}), the {@code --set} path
 * language ({@link OverridePath}), variants and sweep points ({@link ExperimentVariants}), tree
 * to model ({@link ExperimentBinder}) and model to tree ({@link ExperimentYamlWriter}).
 */
public final class ExperimentYaml {

  /** Files larger than this are refused before parsing (an experiment is a page of text). */
  public static final int MAX_BYTES = 1 << 20;

  static final Set<String> TOP_KEYS = Set.of("name", "description", "arch", "seed", "warmup", "duration", "host",
      "vms", "background", "variants", "replications", "sweep", "max-duration", "done-check-interval", "hypervisor",
      "sample-interval");
  static final Set<String> HOST_KEYS = Set.of("cpus", "scheduler", "scheduler-options", "preemptible",
      "exclusive-pinning", "locks", "kernel");
  static final Set<String> VM_KEYS = Set.of("name", "vcpus", "pinning", "scheduler", "scheduler-options",
      "preemptible", "locks", "devices", "workloads", "kernel");
  static final Set<String> LOCK_KEYS = Set.of("spinlock", "mutex", "rwsem", "rwlock", "vcpu-is-preempted");
  /** Keys of one lock algorithm in its long form ({@code mutex: {type: mutex-owner, options: {...}}}). */
  static final Set<String> LOCK_ALGORITHM_KEYS = Set.of("type", "options");
  static final Set<String> HOST_KERNEL_KEYS = Set.of("ttwu-queue", "ttwu-waits-on-cpu", "irq-time-accounting");
  static final Set<String> VM_KERNEL_KEYS = Set.of("ttwu-queue", "ttwu-waits-on-cpu", "resched-ipi",
      "steal-time-accounting", "threads-per-core", "hz");
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
    return ExperimentYamlParser.parse(source, content);
  }

  /** The YAML text as a tree; see {@link #parse(String, byte[])}. */
  public static JsonNode parse(String source, String text) {
    return ExperimentYamlParser.parse(source, text);
  }

  /** The experiment in {@code text} (syntax and binding problems reported together). */
  public static Experiment read(String source, String text) {
    return ExperimentBinder.bind(source, ExperimentYamlParser.parse(source, text));
  }

  /** An experiment tree (e.g. a shipped file with {@code --set} values applied) as YAML text. */
  public static String writeTree(JsonNode tree) {
    return ExperimentYamlWriter.writeTree(tree);
  }

  /** The experiment as YAML text. */
  public static String write(Experiment e) {
    return ExperimentYamlWriter.write(e);
  }

  /** The experiment as a tree of the YAML form (every value explicit). */
  public static ObjectNode toTree(Experiment e) {
    return ExperimentYamlWriter.toTree(e);
  }

  // -------------------------------------------------------------------------------------------
  // Overrides.

  /**
   * Applies {@code path=value} to {@code tree}: the value is read as a YAML scalar or flow
   * collection ({@code 8}, {@code true}, {@code ticket}, {@code [0, 1]}); missing mappings on the
   * way are created; a list index may be at most the list's size (which appends).
   *
   * @return the problem, or null when applied
   */
  public static Problem set(ObjectNode tree, String path, String value) {
    return OverridePath.set(tree, path, value);
  }

  /** {@code base} with the overrides of variant {@code name} applied (the variants themselves dropped). */
  public static Experiment variant(Experiment base, String name) {
    return ExperimentVariants.variant(base, name);
  }

  /**
   * One point of a sweep: {@code base} without its sweep and replications, with {@code overrides}
   * applied (its variants kept).
   */
  public static Experiment point(Experiment base, Map<String, String> overrides, String label) {
    return ExperimentVariants.point(base, overrides, label);
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
    return ExperimentBinder.bind(source, tree);
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
    return ExperimentBinder.bindLenient(tree);
  }
}

package org.lockvisor.experiment.model;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;

/**
 * Model to tree and text: the YAML form of an {@link Experiment} with every value explicit, so
 * that reading it back ({@link ExperimentYaml#read}) gives the same model. Variants and sweep
 * points are derived through this tree ({@link ExperimentVariants}).
 */
final class ExperimentYamlWriter {

  private ExperimentYamlWriter() {}

  /** An experiment tree as YAML text. */
  static String writeTree(JsonNode tree) {
    try {
      return ExperimentYamlParser.MAPPER.writeValueAsString(tree);
    } catch (JsonProcessingException ex) {
      throw new IllegalStateException("cannot write YAML", ex);
    }
  }

  /** The experiment as YAML text. */
  static String write(Experiment e) {
    try {
      return ExperimentYamlParser.MAPPER.writeValueAsString(toTree(e));
    } catch (JsonProcessingException ex) {
      throw new IllegalStateException("cannot write YAML", ex);
    }
  }

  /** The experiment as a tree of the YAML form (every value explicit). */
  static ObjectNode toTree(Experiment e) {
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
    if (e.sampleIntervalNs() != 0) {
      o.put("sample-interval", Durations.format(e.sampleIntervalNs()));
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
      if (k.threadsPerCore() != 1) {
        o.put("threads-per-core", k.threadsPerCore());
      }
      if (k.hz() != null) {
        o.put("hz", k.hz());
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
}

package org.lockvisor.experiment.report;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.lockvisor.core.plugin.Plugin;
import org.lockvisor.devices.spi.Device;
import org.lockvisor.devices.spi.LockProvider;
import org.lockvisor.experiment.WhatIf;
import org.lockvisor.experiment.model.ExperimentPlugins;
import org.lockvisor.experiment.model.PluginRegistry;
import org.lockvisor.experiment.runner.ExperimentResult;
import org.lockvisor.experiment.runner.LockClassStats;
import org.lockvisor.experiment.runner.LockStatistics;
import org.lockvisor.experiment.runner.Provenance;
import org.lockvisor.experiment.runner.ResultJson;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.VcpuTask;
import org.lockvisor.machine.Vm;
import org.lockvisor.workloads.spi.Workload;

/**
 * Captures one run whose machine was assembled by hand (a reproduction's internal run, not an
 * {@code ExperimentRunner} run) so that the same {@link RunOutputs} writers, and the same {@code
 * result.json}, serve it: the caller registers the run's workloads, devices, locks and
 * schedulers, calls {@link #measurementStarted} when its measurement window opens (after its own
 * reset of statistics) and {@link #finished} when it closes. The result is an {@link
 * ExperimentResult} with the run's figures, per-thread CPU and lock_stat, and the provenance
 * names every plugin registered, with its version.
 *
 * <p>Nothing is added to the machine until {@link #measurementStarted}; a run without a capture
 * costs nothing.
 */
public final class RunCapture {

  private record RegisteredLock(KernelLock lock, List<String> callSites) {}

  private final String experiment;
  private final String label;
  private final String variant;
  private final String arch;
  private final long seed;
  private final Map<String, Object> config;
  private final ExperimentPlugins plugins;
  private RunOutputs outputs;
  private final long wallStart = System.nanoTime();
  private final List<String> workloadVms = new ArrayList<>();
  private final List<Workload> workloads = new ArrayList<>();
  private final List<String> deviceVms = new ArrayList<>();
  private final List<Device> devices = new ArrayList<>();
  private final List<RegisteredLock> locks = new ArrayList<>();
  private final Map<String, Plugin> used = new TreeMap<>();
  private String baseline;
  private long startNs = -1;
  private long[] cpuAtStart;
  private ExperimentResult result;

  /**
   * @param experiment the reproduction's name
   * @param label the run's name, unique within the reproduction (its directory)
   * @param variant {@code baseline}, {@code patched} or another variant name
   * @param arch the arch profile
   * @param seed the run's seed
   * @param config what identifies the run besides the above (parameters, run lengths), hashed into
   *     the provenance's config hash; values are strings, numbers or booleans
   */
  public RunCapture(String experiment, String label, String variant, String arch, long seed,
      Map<String, Object> config) {
    checkArgument(label.matches("[A-Za-z0-9._-]+"), "run label must be a file name: [%s]", label);
    this.experiment = experiment;
    this.label = label;
    this.variant = variant;
    this.arch = arch;
    this.seed = seed;
    this.config = new LinkedHashMap<>(config);
    this.plugins = PluginRegistry.classPath().experimentPlugins();
    this.outputs = RunOutputs.ownDirectory(plugins, arch, variant, 0);
    plugin(plugins.arches().get(arch));
  }

  /**
   * Also records the run's {@code trace.json}, at most {@code events} trace events (0: no trace);
   * call before the run starts.
   */
  public RunCapture trace(int events) {
    checkArgument(events >= 0, "trace event limit must not be negative: [%s]", events);
    checkState(startNs < 0, "run [%s] has started; ask for its trace before", label);
    this.outputs = RunOutputs.ownDirectory(plugins, arch, variant, events);
    return this;
  }

  /** This run's baseline run (another label): its folded stacks are diffed against this run's. */
  public RunCapture baseline(String baselineLabel) {
    this.baseline = baselineLabel;
    return this;
  }

  /** Records that the run uses scheduler plugin {@code name} (for the provenance). */
  public RunCapture scheduler(String name) {
    plugin(plugins.schedulers().get(name));
    return this;
  }

  /** A workload of VM {@code vm}: its figures and native report go into the result. */
  public RunCapture workload(String vm, Workload w) {
    workloadVms.add(vm);
    workloads.add(w);
    plugin(plugins.workloads().get(w.model()));
    return this;
  }

  /** A device of VM {@code vm}: its statistics go into the result. */
  public RunCapture device(String vm, Device d) {
    deviceVms.add(vm);
    devices.add(d);
    plugin(plugins.devices().get(d.model()));
    return this;
  }

  /** Registers {@code lock} for lock_stat and lock-contention; returns it. */
  public KernelLock lock(KernelLock lock, String... callSites) {
    locks.add(new RegisteredLock(lock, List.of(callSites)));
    plugin(plugins.locks().get(lock.algorithm()));
    return lock;
  }

  /** {@code provider} with every lock it creates registered ({@link #lock}). */
  public LockProvider locks(LockProvider provider) {
    return (kernel, name, kind) -> lock(provider.create(kernel, name, kind));
  }

  private void plugin(Plugin p) {
    if (p != null) {
      used.putIfAbsent(p.kind() + "/" + p.name(), p);
    }
  }

  /**
   * The measurement window opens now: the caller reset its workloads' and devices' statistics
   * (which reset the devices' locks). The VM-exit statistics of every vCPU, read only by {@code
   * kvm-stat.txt}, are reset here.
   */
  public void measurementStarted(Machine machine) {
    checkState(startNs < 0, "run [%s]: measurement already started", label);
    for (Vm vm : machine.vms()) {
      for (VcpuTask vcpu : vm.vcpus()) {
        vcpu.exitStats().values().forEach(VcpuTask.ExitStats::reset);
      }
      vm.resetSpinTrapStats();
      vm.guest().schedStats().reset(machine.sim().now());
    }
    machine.host().schedStats().reset(machine.sim().now());
    startNs = machine.sim().now();
    cpuAtStart = ExperimentResult.ThreadCpu.totals(machine);
    outputs.measurementStarted(machine);
  }

  /** The measurement window closes now: builds the result and every file of {@link #outputs}. */
  public ExperimentResult finished(Machine machine) {
    checkState(startNs >= 0, "run [%s]: measurement never started", label);
    checkState(result == null, "run [%s]: already finished", label);
    List<ExperimentResult.WorkloadResult> w = new ArrayList<>();
    for (int i = 0; i < workloads.size(); i++) {
      Workload x = workloads.get(i);
      w.add(new ExperimentResult.WorkloadResult(workloadVms.get(i), x.name(), x.model(), x.figures(),
          x.nativeReport().orElse(null)));
    }
    List<ExperimentResult.DeviceResult> d = new ArrayList<>();
    for (int i = 0; i < devices.size(); i++) {
      Device x = devices.get(i);
      d.add(new ExperimentResult.DeviceResult(deviceVms.get(i), x.name(), x.model(), x.stats()));
    }
    List<LockClassStats> classes = new ArrayList<>();
    for (RegisteredLock l : locks) {
      classes.add(LockClassStats.of(l.lock().lockClass(), l.lock().stats(), l.callSites()));
    }
    long now = machine.sim().now();
    result = new ExperimentResult(experiment, variant, arch, seed, startNs, now - startNs,
        System.nanoTime() - wallStart, machine.sim().eventsProcessed(),
        HexFormat.of().toHexDigits(machine.sim().fingerprint()), w, d, LockStatistics.of(classes),
        ExperimentResult.ThreadCpu.since(machine, cpuAtStart), -1, SchedulingReport.of(machine));
    outputs.finished(machine, result, locks.stream().map(RegisteredLock::lock).toList());
    // Keep the result and files only: a finished capture may be held while other runs go on.
    workloads.clear();
    devices.clear();
    locks.clear();
    cpuAtStart = null;
    return result;
  }

  public String label() {
    return label;
  }

  public String variant() {
    return variant;
  }

  public String experiment() {
    return experiment;
  }

  /** The label of this run's baseline, or {@code null}. */
  public String baselineLabel() {
    return baseline;
  }

  /** The files of the run (after {@link #finished}). */
  public RunOutputs outputs() {
    return outputs;
  }

  /** The run's result (after {@link #finished}). */
  public ExperimentResult result() {
    checkState(result != null, "run [%s] has not finished", label);
    return result;
  }

  /** The configuration that identifies the run: experiment, run, variant, arch, seed and the parameters. */
  public ObjectNode configTree() {
    ObjectNode tree = ResultJson.MAPPER.createObjectNode();
    tree.put("reproduction", experiment);
    tree.put("run", label);
    tree.put("variant", variant);
    tree.put("arch", arch);
    tree.put("seed", seed);
    tree.set("parameters", ResultJson.MAPPER.valueToTree(config));
    return tree;
  }

  /** The provenance manifest of the run built by {@code version} at {@code commit}. */
  public Provenance provenance(String version, String commit) {
    return provenance(version, commit, WhatIf.NONE);
  }

  /**
   * The provenance manifest of the run, part of {@code whatIf}: its config hash covers the
   * what-if's costs and parameters too ({@code what_if} beside {@link #configTree()}'s fields;
   * unchanged without a what-if).
   */
  public Provenance provenance(String version, String commit, WhatIf whatIf) {
    List<Provenance.PluginUse> uses = new ArrayList<>();
    used.values().forEach(p -> uses.add(new Provenance.PluginUse(p.kind(), p.name(), p.version())));
    ObjectNode tree = configTree();
    if (!whatIf.isEmpty()) {
      tree.set("what_if", ResultJson.MAPPER.valueToTree(whatIf.json()));
    }
    return new Provenance(version, commit, Provenance.configHash(tree), seed, uses);
  }
}

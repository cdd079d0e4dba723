package org.lockvisor.experiment.runner;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.lockvisor.arch.spi.ArchProfile;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.devices.spi.Device;
import org.lockvisor.experiment.check.CheckedLock;
import org.lockvisor.experiment.model.Experiment;
import org.lockvisor.experiment.model.ExperimentPlugins;
import org.lockvisor.experiment.model.LockChoices;
import org.lockvisor.experiment.model.VmSpec;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.KernelLocks;
import org.lockvisor.locking.spi.LockContext;
import org.lockvisor.arch.spi.ArchCosts;
import org.lockvisor.locking.spi.LockFactory;
import org.lockvisor.locking.spi.LockFactory.LockKind;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.VcpuTask;
import org.lockvisor.machine.Vm;
import org.lockvisor.workloads.spi.Workload;

/**
 * The machine of one run, as {@link MachineAssembler} built it, and everything needed to reset
 * and read it: its devices and workloads in model order, and the locks it created. It is the
 * {@link KernelLocks} of its devices and workloads, so every
 * lock they create takes the experiment's choice for its kernel (and its options) and is
 * registered for the run's lock_stat.
 */
final class AssembledMachine implements KernelLocks {

  /** The option of sleeping-lock plugins that names their wait_lock's spinlock algorithm. */
  static final String WAIT_LOCK = "wait-lock";

  /** A lock the run created, with the functions that take it (its lock_stat contention points). */
  record RegisteredLock(KernelLock lock, List<String> callSites) {}

  private final ExperimentPlugins plugins;
  final Machine machine;
  final ArchProfile profile;
  final ArchCosts lockCosts;
  final Kernel host;
  final LockChoices hostLocks;
  final List<Vm> vms = new ArrayList<>();
  final List<VmSpec> vmSpecs = new ArrayList<>();
  final List<Device> devices = new ArrayList<>();
  final List<String> deviceVms = new ArrayList<>();
  final List<Workload> workloads = new ArrayList<>();
  final List<String> workloadVms = new ArrayList<>();
  final List<RegisteredLock> locks = new ArrayList<>();
  final List<CheckedLock> checkedLocks = new ArrayList<>();
  boolean checkLocks;
  /** The guest sampler of {@code sample-interval}, or null. */
  GuestSampler sampler;

  AssembledMachine(ExperimentPlugins plugins, Machine machine, ArchProfile profile, Kernel host,
      LockChoices hostLocks) {
    this.plugins = plugins;
    this.machine = machine;
    this.profile = profile;
    this.lockCosts = ArchCosts.of(profile);
    this.host = host;
    this.hostLocks = hostLocks;
  }

  private LockChoices choices(Kernel kernel) {
    if (!kernel.isGuest()) {
      return hostLocks;
    }
    int i = vms.indexOf(kernel.vm());
    return i < 0 ? LockChoices.defaults() : vmSpecs.get(i).locks();
  }

  @Override
  public String algorithm(Kernel kernel, LockKind kind) {
    LockChoices c = choices(kernel);
    String algorithm = c.algorithm(kind, profile.name());
    if (algorithm == null) {
      throw new IllegalArgumentException("no rwlock plugin models the rwlock of [" + profile.name()
          + "] (4.x arch/s390/lib/spinlock.c _raw_read_lock_wait); choose one, e.g. locks: {rwlock: qrwlock}");
    }
    return algorithm;
  }

  /**
   * The experiment's options for {@code algorithm} in {@code kernel} ({@code locks: {mutex: {type:
   * mutex-owner, options: {...}}}}) when it is the kernel's choice for {@code kind}, under the
   * caller's own: a workload or device asking for the kernel's lock gets it as configured.
   */
  private Map<String, String> withExperimentOptions(Kernel kernel, String algorithm, LockKind kind,
      Map<String, String> options) {
    LockChoices c = choices(kernel);
    if (kind == LockKind.OSQ || !algorithm.equals(c.algorithm(kind, profile.name())) || c.options(kind).isEmpty()) {
      return options;
    }
    Map<String, String> merged = new java.util.TreeMap<>(c.options(kind));
    merged.putAll(options);
    return merged;
  }

  @Override
  public KernelLock create(Kernel kernel, String name, String algorithm, LockKind kind, Map<String, String> options,
      String... callSites) {
    LockFactory f = plugins.locks().get(algorithm);
    if (f == null) {
      throw new IllegalArgumentException(org.lockvisor.core.plugin.DidYouMean.unknownMessage(
          kind.name().toLowerCase(java.util.Locale.ROOT) + " algorithm", algorithm, plugins.locksOfKind(kind)));
    }
    if (f.lockKind() != kind) {
      throw new IllegalArgumentException("lock [" + algorithm + "] is a "
          + f.lockKind().name().toLowerCase(java.util.Locale.ROOT) + " algorithm; this needs a "
          + kind.name().toLowerCase(java.util.Locale.ROOT) + " one: " + plugins.locksOfKind(kind));
    }
    boolean check = kernel.isGuest() && choices(kernel).vcpuIsPreempted();
    Map<String, String> effective = withWaitLock(f, kernel, withExperimentOptions(kernel, algorithm, kind, options));
    KernelLock lock = MachineAssembler.guarded(f, "creating lock [" + name + "]", () -> LockContext.builder(kernel, lockCosts)
        .name(name).vcpuIsPreemptedCheck(check).options(effective).create(f));
    locks.add(new RegisteredLock(lock, List.of(callSites)));
    if (checkLocks) {
      CheckedLock checked = CheckedLock.of(lock);
      checkedLocks.add(checked);
      return checked.lock();
    }
    return lock;
  }

  /**
   * A sleeping lock's {@code wait_lock} is a spinlock_t of the same kernel: unless the options
   * name it, it is the kernel's spinlock choice (when the lock plugin offers that algorithm).
   */
  private Map<String, String> withWaitLock(LockFactory f, Kernel kernel, Map<String, String> options) {
    if (options.containsKey(WAIT_LOCK)) {
      return options;
    }
    String spinlock = choices(kernel).spinlock();
    for (org.lockvisor.core.plugin.PluginOption o : f.options()) {
      if (o.name().equals(WAIT_LOCK) && o.allowed().contains(spinlock)) {
        Map<String, String> out = new java.util.TreeMap<>(options);
        out.put(WAIT_LOCK, spinlock);
        return out;
      }
    }
    return options;
  }

  void resetStats() {
    // Kernels and vCPUs first: devices and workloads may take their baselines from kernel
    // counters (vhost-net reads the host's ttwu counts), which must already be reset then.
    host.resetStats();
    for (Vm vm : machine.vms()) {
      vm.guest().resetStats();
      for (VcpuTask vcpu : vm.vcpus()) {
        vcpu.exitStats().values().forEach(VcpuTask.ExitStats::reset);
      }
      vm.resetSpinTrapStats();
    }
    for (RegisteredLock l : locks) {
      l.lock().stats().reset();
    }
    for (Workload w : workloads) {
      w.resetStats();
    }
    for (Device d : devices) {
      d.resetStats();
    }
    if (sampler != null) {
      sampler.reset();
    }
  }

  long[] threadCpu() {
    return ExperimentResult.ThreadCpu.totals(machine);
  }

  /** Whether every workload has finished (true without workloads). */
  boolean allFinished() {
    for (Workload w : workloads) {
      if (!w.finished()) {
        return false;
      }
    }
    return true;
  }

  /** When the last workload finished (ns since the simulation began), or -1 if one has not. */
  long lastFinishedNs() {
    long last = -1;
    for (Workload w : workloads) {
      if (!w.finished()) {
        return -1;
      }
      last = Math.max(last, w.finishedNs());
    }
    return last;
  }

  ExperimentResult result(Experiment e, String variant, long[] cpuAtStart, AccountWindow window, long wallNs,
      long endNs) {
    List<ExperimentResult.WorkloadResult> workloadResults = new ArrayList<>();
    for (int i = 0; i < workloads.size(); i++) {
      Workload w = workloads.get(i);
      workloadResults.add(new ExperimentResult.WorkloadResult(workloadVms.get(i), w.name(), w.model(),
          w.figures(), w.nativeReport().orElse(null), w.finished() ? w.finishedNs() : -1));
    }
    List<ExperimentResult.DeviceResult> deviceResults = new ArrayList<>();
    for (int i = 0; i < devices.size(); i++) {
      Device d = devices.get(i);
      deviceResults.add(new ExperimentResult.DeviceResult(deviceVms.get(i), d.name(), d.model(), d.stats()));
    }
    List<LockClassStats> classes = new ArrayList<>();
    for (RegisteredLock l : locks) {
      classes.add(LockClassStats.of(l.lock().lockClass(), l.lock().stats(), l.callSites()));
    }
    List<ExperimentResult.ThreadCpu> threads = ExperimentResult.ThreadCpu.since(machine, cpuAtStart);
    Simulation sim = machine.sim();
    List<SymbolProfile> profiles = new ArrayList<>();
    for (Vm vm : vms) {
      profiles.add(SymbolProfile.guest(machine, window::forEachSinceOpened, vm, vm.partitionFirmware(),
          hypervisorCommand(vm)));
    }
    // the sampler's own events are the instrument's, not the machine's
    long events = sim.eventsProcessed() - (sampler == null ? 0 : sampler.events());
    return new ExperimentResult(e.name(), variant, e.arch(), e.seed(), e.warmupNs(), endNs - e.warmupNs(), wallNs,
        events, HexFormat.of().toHexDigits(sim.fingerprint()), workloadResults, deviceResults,
        LockStatistics.of(classes), threads, e.untilDone() ? lastFinishedNs() : -1,
        SchedulingCounters.of(machine, endNs - e.warmupNs()), profiles, LockTotals.of(kernelLocks()),
        sampler == null ? List.of() : sampler.results(), LockConvoy.of(kernelLocks(), endNs - e.warmupNs()));
  }

  /** {@code [H]} samples of a partition hypervisor go to the VM's first workload (or {@code [hypervisor]}). */
  private String hypervisorCommand(Vm vm) {
    for (int i = 0; i < workloads.size(); i++) {
      if (workloadVms.get(i).equals(vm.name())) {
        return workloads.get(i).name();
      }
    }
    return "[hypervisor]";
  }

  /** The locks the run created, in creation order. */
  List<KernelLock> kernelLocks() {
    return locks.stream().map(RegisteredLock::lock).toList();
  }
}

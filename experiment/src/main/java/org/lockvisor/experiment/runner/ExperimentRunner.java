package org.lockvisor.experiment.runner;

import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.lockvisor.arch.spi.ArchProfile;
import org.lockvisor.arch.spi.ArchProfileFactory;
import org.lockvisor.experiment.model.HypervisorSettings;
import org.lockvisor.core.sim.EventBudgetExceededException;
import org.lockvisor.core.sim.EventHandler;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.devices.spi.CostSource;
import org.lockvisor.devices.spi.Device;
import org.lockvisor.devices.spi.DeviceContext;
import org.lockvisor.devices.spi.DeviceFactory;
import org.lockvisor.devices.spi.LockProvider;
import org.lockvisor.experiment.SimulationFailedException;
import org.lockvisor.experiment.check.CheckedLock;
import org.lockvisor.experiment.check.Perturbation;
import org.lockvisor.experiment.check.RunChecks;
import org.lockvisor.experiment.check.RunGuard;
import org.lockvisor.experiment.check.RunawayException;
import org.lockvisor.experiment.model.BackgroundSpec;
import org.lockvisor.experiment.model.Choice;
import org.lockvisor.experiment.model.ComponentSpec;
import org.lockvisor.experiment.model.Durations;
import org.lockvisor.experiment.model.Experiment;
import org.lockvisor.experiment.model.ExperimentPlugins;
import org.lockvisor.experiment.model.ExperimentValidator;
import org.lockvisor.experiment.model.ExperimentYaml;
import org.lockvisor.experiment.model.InvalidExperimentException;
import org.lockvisor.experiment.model.KernelSpec;
import org.lockvisor.experiment.model.LockChoices;
import org.lockvisor.experiment.model.Problem;
import org.lockvisor.experiment.model.SweepPoints;
import org.lockvisor.experiment.model.VmSpec;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockContext;
import org.lockvisor.locking.spi.LockCosts;
import org.lockvisor.locking.spi.LockFactory;
import org.lockvisor.locking.spi.LockFactory.LockKind;
import org.lockvisor.machine.InvariantViolation;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.KernelConfig;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Scheduler;
import org.lockvisor.machine.TtwuQueueMode;
import org.lockvisor.machine.VcpuTask;
import org.lockvisor.machine.Vm;
import org.lockvisor.platform.Platforms;
import org.lockvisor.scheduler.spi.SchedulerFactory;
import org.lockvisor.workloads.spi.Workload;
import org.lockvisor.workloads.spi.WorkloadContext;
import org.lockvisor.workloads.spi.WorkloadFactory;
import org.lockvisor.workloads.spi.WorkloadLocks;

/**
 * Builds the machine an {@link Experiment} describes from the plugins it names, and runs it:
 * warm-up, reset of every statistic, measurement, collection. Each run owns its simulation (no
 * shared mutable state between runs), so runs may execute in parallel.
 *
 * <p>Machine assembly: the host kernel and each guest kernel from the arch profile
 * ({@link Platforms}), schedulers from their plugins, vCPU threads pinned as the model says,
 * {@code vcpu_is_preempted} semantics from the profile's hypervisor with each VM's switch, devices
 * attached then workloads started in model order, background VMs (one CPU-bound task per vCPU)
 * and CPU-bound host threads pinned round-robin. Every lock created for devices and workloads is
 * registered for the run's lock_stat. Each kernel's {@code kernel:} section sets its wakeup path
 * (TTWU_QUEUE mode, waiting on {@code on_cpu}), a guest's priced reschedule IPIs ({@link
 * Platforms#configureIpis}) and its steal-time accounting; a sleeping lock's {@code wait_lock}
 * is its kernel's spinlock choice unless the lock's options name one.
 *
 * <p>Run length: a fixed measurement window, or ({@code duration: until-done}) until every
 * workload has {@link Workload#finished() finished}. The runner then advances simulated time in
 * slices of {@link Experiment#doneCheckIntervalNs()} from the end of warm-up and asks the
 * workloads between slices — nothing per event, no event of its own, so the run's events and
 * fingerprint are those of a fixed run that ends at the same check — and ends the measurement at
 * the first check after the last one finished; a workload still running at {@link
 * Experiment#maxDurationNs()} fails the run.
 */
public final class ExperimentRunner {

  /** Work quantum of a CPU-bound background thread (it loops forever). */
  static final long HOG_QUANTUM_NS = 1_000_000;
  /** The option of sleeping-lock plugins that names their wait_lock's spinlock algorithm. */
  static final String WAIT_LOCK = "wait-lock";

  private final ExperimentPlugins plugins;
  private final ExperimentValidator validator;
  /** Heap one machine may take (see {@link MemoryBudget}); 0: three quarters of the JVM's. */
  private volatile long memoryLimit;
  private volatile String memoryLimitSource = "";
  /** {@link System#nanoTime()} after which building a machine stops (Long.MAX_VALUE: never). */
  private volatile long buildDeadline = Long.MAX_VALUE;
  private volatile String buildDeadlineSource = "";
  /** {@link System#nanoTime()} when the machine now being built began (0: none is being built). */
  private final java.util.concurrent.atomic.AtomicLong buildingSince = new java.util.concurrent.atomic.AtomicLong();
  private java.util.function.UnaryOperator<org.lockvisor.machine.HypervisorConfig> hypervisorAdjust =
      java.util.function.UnaryOperator.identity();

  public ExperimentRunner(ExperimentPlugins plugins) {
    this.plugins = plugins;
    this.validator = new ExperimentValidator(plugins);
  }

  public ExperimentPlugins plugins() {
    return plugins;
  }

  /**
   * Limits the heap one machine may take to {@code bytes} ({@code source} names the setting in
   * messages, e.g. {@code --max-memory 2g}); 0 restores the default, three quarters of the JVM's
   * maximum heap. An experiment whose estimate is over the limit is refused before it is built.
   */
  public void limitMemory(long bytes, String source) {
    this.memoryLimit = bytes;
    this.memoryLimitSource = source;
  }

  /**
   * Stops the building of any machine (validation included) after {@link System#nanoTime()}
   * reaches {@code deadlineNanos}: a {@code --max-wall} that also covers the time before the
   * first event. {@code source} names the setting in the message.
   */
  public void limitBuilding(long deadlineNanos, String source) {
    this.buildDeadline = deadlineNanos;
    this.buildDeadlineSource = source;
  }

  /**
   * When the machine being built now began ({@link System#nanoTime()}), or 0 when none is: a
   * watchdog can stop a build that one plugin's start keeps busy past the wall-clock budget.
   */
  public long buildingSince() {
    return buildingSince.get();
  }

  private void checkMemory(Experiment e) {
    // --max-memory can only lower the limit: above the heap it would trade a refusal for an OutOfMemoryError
    long heap = MemoryBudget.defaultLimit();
    boolean given = memoryLimit > 0 && memoryLimit < heap;
    MemoryBudget.check(e, plugins, given ? memoryLimit : heap, given ? memoryLimitSource
        : "three quarters of the JVM heap of " + MemoryBudget.bytes(Runtime.getRuntime().maxMemory()));
  }

  /** Throws when building has run past {@code deadline} (checked between components). */
  private static void checkBuilding(long deadline, String source, String after) {
    if (deadline != Long.MAX_VALUE && System.nanoTime() > deadline) {
      throw new SimulationFailedException("wall-clock budget (" + source + ") exceeded while building the machine,"
          + " after " + after + "; make the experiment smaller or raise the budget");
    }
  }

  /**
   * Validates {@code e} and its variants, then assembles each machine without running it (which
   * catches what only the plugins can see, e.g. a workload that needs a device the VM lacks).
   *
   * @throws InvalidExperimentException listing every problem
   */
  public void validate(String source, Experiment e) {
    validator.check(source, e);
    try {
      checkMemory(e); // once for the base: its variants would repeat the same line
    } catch (InvalidExperimentException ex) {
      throw new InvalidExperimentException(source, ex.problems());
    }
    List<Problem> problems = new ArrayList<>();
    List<Map<String, String>> points = SweepPoints.of(e);
    for (int i = 0; i < points.size(); i++) {
      Experiment point = e.sweep().isEmpty() ? e : ExperimentYaml.point(e, points.get(i), "");
      String prefix = e.sweep().isEmpty() ? "" : ExperimentValidator.pointLabel(i, points.get(i)) + ".";
      for (Problem p : assemblyProblems(point)) {
        problems.add(new Problem(prefix + p.path(), p.message()));
      }
      for (String variant : point.variants().keySet()) {
        for (Problem p : assemblyProblems(ExperimentYaml.variant(point, variant))) {
          problems.add(new Problem(prefix + "variants." + variant + (p.path().isEmpty() ? "" : "." + p.path()),
              p.message()));
        }
      }
    }
    if (!problems.isEmpty()) {
      throw new InvalidExperimentException(source, problems);
    }
  }

  /**
   * The experiment a YAML tree describes, validated as {@link #validate} does, plus the checks of
   * keys and types.
   *
   * @throws InvalidExperimentException listing every problem
   */
  public Experiment validateTree(String source, com.fasterxml.jackson.databind.JsonNode tree) {
    Experiment e = validator.validateTree(source, tree);
    validate(source, e);
    return e;
  }

  private List<Problem> assemblyProblems(Experiment e) {
    try {
      assemble(e);
      return List.of();
    } catch (InvalidExperimentException ex) {
      return ex.problems();
    }
  }

  /** The base experiment followed by each variant, in name order. */
  public List<ExperimentResult> runAll(String source, Experiment e) {
    validate(source, e);
    List<ExperimentResult> results = new ArrayList<>();
    results.add(run(e, "base"));
    for (String variant : e.variants().keySet()) {
      results.add(run(ExperimentYaml.variant(e, variant), variant));
    }
    return results;
  }

  /**
   * Runs {@code e} (assumed valid) and labels the result with {@code variant}, with the checks
   * of {@link RunChecks#defaults()} (invariant mode in the build's tests).
   */
  /**
   * Adjusts the hypervisor configuration the profile gives (directed-yield variant, PLE shrink,
   * host background activity) for every run of this runner; the programmatic counterpart of the
   * experiment's hypervisor settings. Returns this runner.
   */
  public ExperimentRunner adjustHypervisor(
      java.util.function.UnaryOperator<org.lockvisor.machine.HypervisorConfig> adjust) {
    this.hypervisorAdjust = java.util.Objects.requireNonNull(adjust, "adjust");
    return this;
  }

  public ExperimentResult run(Experiment e, String variant) {
    return run(e, variant, RunChecks.defaults(), RunObserver.NONE);
  }

  /**
   * Runs {@code e} (assumed valid) with {@code checks}: invariant mode, runaway budgets and the
   * perturbations of schedule exploration. A violated invariant, a deadlock, a lost wakeup or an
   * exceeded budget fails the run with a {@link SimulationFailedException} whose message names
   * the event, the time, the threads and locks involved, and the replay command.
   */
  public ExperimentResult run(Experiment e, String variant, RunChecks checks) {
    return run(e, variant, checks, RunObserver.NONE);
  }

  /**
   * Runs {@code e} (assumed valid), labels the result with {@code variant}, and lets {@code
   * observer} see the machine when measurement starts and when it ends (to attach a trace, or to
   * write reports that need the machine).
   */
  public ExperimentResult run(Experiment e, String variant, RunObserver observer) {
    return run(e, variant, RunChecks.defaults(), observer);
  }

  /** Runs {@code e} with {@code checks} and {@code observer}. */
  public ExperimentResult run(Experiment e, String variant, RunChecks checks, RunObserver observer) {
    long wallStart = System.nanoTime();
    Assembly a = assemble(e, checks);
    Simulation sim = a.machine.sim();
    RunGuard guard = checks.guarded() ? new RunGuard(a.machine, checks, a.checkedLocks).install() : null;
    try {
      sim.runUntil(e.warmupNs());
      a.resetStats();
      long[] cpuAtStart = a.threadCpu();
      observer.measurementStarted(a.machine);
      long end;
      if (e.untilDone()) {
        end = runUntilDone(e, variant, a);
      } else {
        end = e.warmupNs() + e.durationNs();
        sim.runUntil(end);
      }
      if (guard != null) {
        guard.finish();
      }
      ExperimentResult result = a.result(e, variant, cpuAtStart, System.nanoTime() - wallStart, end);
      observer.finished(a.machine, result, a.locks.stream().map(RegisteredLock::lock).toList());
      return result;
    } catch (InvariantViolation | RunawayException ex) {
      EventHandler h = sim.currentHandler();
      throw new SimulationFailedException("experiment [" + e.name() + "] variant [" + variant + "]: "
          + ex.getMessage() + "; at event #" + sim.eventsProcessed() + " (" + (h == null ? "none"
          : h.getClass().getSimpleName() + " " + h) + ")" + (checks.perturbSeed() != 0
          ? "; perturbation " + checks.perturbSeed() : "") + (checks.replay().isEmpty() ? ""
          : "; replay: " + checks.replay()), ex);
    } catch (SimulationFailedException ex) {
      throw ex;
    } catch (EventBudgetExceededException ex) {
      throw new SimulationFailedException("experiment [" + e.name() + "] variant [" + variant + "] failed at t="
          + sim.now() + "ns: " + ex.getMessage() + (checks.replay().isEmpty() ? "" : "; replay: " + checks.replay()),
          ex);
    } catch (RuntimeException ex) {
      // A plugin (or the machine under it) threw while the simulation ran: fail this run, name the plugin.
      String plugin = new PluginFault(plugins).attribute(ex);
      throw new SimulationFailedException("experiment [" + e.name() + "] variant [" + variant + "]: "
          + (plugin.isEmpty() ? "the simulation" : plugin) + " failed while running at t=" + sim.now() + "ns: "
          + PluginFault.describe(ex) + (checks.replay().isEmpty() ? "" : "; replay: " + checks.replay()), ex);
    }
  }

  /**
   * Runs the measurement of an until-done experiment: slices of {@code done-check-interval} from
   * the end of warm-up until every workload has finished, at most {@code max-duration}.
   *
   * @return the simulated time of the check that found them all finished
   * @throws SimulationFailedException when they finished during warm-up or were still running at the cap
   */
  private static long runUntilDone(Experiment e, String variant, Assembly a) {
    Simulation sim = a.machine.sim();
    long start = e.warmupNs();
    long cap = start + e.maxDurationNs();
    long t = start;
    while (!a.allFinished() && t < cap) {
      t = Math.min(cap, t + e.doneCheckIntervalNs());
      sim.runUntil(t);
    }
    String run = "experiment [" + e.name() + "] variant [" + variant + "]: duration [" + Experiment.UNTIL_DONE + "]: ";
    if (!a.allFinished()) {
      List<String> running = new ArrayList<>();
      for (int i = 0; i < a.workloads.size(); i++) {
        Workload w = a.workloads.get(i);
        if (!w.finished()) {
          running.add(a.workloadVms.get(i) + "/" + w.name() + " (" + w.model() + ")");
        }
      }
      throw new SimulationFailedException(run + running.size() + " of " + a.workloads.size()
          + " workloads still running after max-duration [" + Durations.format(e.maxDurationNs())
          + "] of simulated time: " + running + "; raise [max-duration] or give a fixed duration");
    }
    if (t == start && !a.workloads.isEmpty()) {
      throw new SimulationFailedException(run + "every workload finished during the warm-up (by "
          + Durations.format(a.lastFinishedNs()) + "), before the measurement began; shorten [warmup] (e.g. to [0])");
    }
    return t;
  }

  // -------------------------------------------------------------------------------------------
  // Assembly.

  /** A lock the run created, with the functions that take it (its lock_stat contention points). */
  private record RegisteredLock(KernelLock lock, List<String> callSites) {}

  /** The machine of one run and everything needed to reset and read it. */
  private final class Assembly implements LockProvider, WorkloadLocks {
    final Machine machine;
    final ArchProfile profile;
    final LockCosts lockCosts;
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

    Assembly(Machine machine, ArchProfile profile, Kernel host, LockChoices hostLocks) {
      this.machine = machine;
      this.profile = profile;
      this.lockCosts = LockCosts.fromProfile(profile);
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

    @Override
    public KernelLock create(Kernel kernel, String name, LockKind kind) {
      return create(kernel, name, algorithm(kernel, kind), kind, Map.of());
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
      KernelLock lock = guarded(f, "creating lock [" + name + "]", () -> LockContext.builder(kernel, lockCosts)
          .name(name).vcpuIsPreemptedCheck(check).options(effective).create(f));
      locks.add(new RegisteredLock(lock, List.of(callSites)));
      if (checkLocks) {
        CheckedLock checked = new CheckedLock(lock);
        checkedLocks.add(checked);
        return checked;
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

    ExperimentResult result(Experiment e, String variant, long[] cpuAtStart, long wallNs, long endNs) {
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
      return new ExperimentResult(e.name(), variant, e.arch(), e.seed(), e.warmupNs(), endNs - e.warmupNs(), wallNs,
          sim.eventsProcessed(), HexFormat.of().toHexDigits(sim.fingerprint()), workloadResults, deviceResults,
          LockStatistics.of(classes), threads, e.untilDone() ? lastFinishedNs() : -1,
          SchedulingCounters.of(machine, endNs - e.warmupNs()));
    }
  }

  /** Builds the machine of {@code e}; a component that rejects its configuration is a problem at its path. */
  private Assembly assemble(Experiment e) {
    return assemble(e, RunChecks.NONE);
  }

  private Assembly assemble(Experiment e, RunChecks checks) {
    checkMemory(e); // before anything is allocated
    buildingSince.set(System.nanoTime());
    try {
      return build(e, checks);
    } finally {
      buildingSince.set(0);
    }
  }

  private Assembly build(Experiment e, RunChecks checks) {
    long deadline = buildDeadline;
    String deadlineSource = buildDeadlineSource;
    if (checks.wallBudgetNs() != Long.MAX_VALUE) {
      long runDeadline = System.nanoTime() + checks.wallBudgetNs();
      if (runDeadline < deadline) {
        deadline = runDeadline;
        deadlineSource = String.format(java.util.Locale.ROOT, "%.1f s", checks.wallBudgetNs() / 1e9);
      }
    }
    List<Problem> problems = new ArrayList<>();
    // The experiment's hypervisor: section (checked by the validator) changes the profile it runs on.
    ArchProfileFactory archFactory = plugins.arches().get(e.arch());
    ArchProfile profile = HypervisorSettings.apply(archFactory, archFactory.create(), e.hypervisor());
    Simulation simulation = new Simulation(e.seed());
    Machine machine = new Machine(simulation);
    if (checks.perturbSeed() != 0) {
      Perturbation.install(machine, checks.perturbSeed(), checks.jitterPercent());
    }
    int cpus = e.host().cpus() > 0 ? e.host().cpus() : profile.topology().cpus();
    KernelConfig hostConfig = Platforms.hostKernel(profile, ttwuQueue(e.host().kernel()), e.host().preemptible());
    Kernel host = machine.createHost("host", cpus, hostConfig, scheduler(e.host().scheduler()));
    Platforms.configureCacheLines(machine, profile);
    host.setTtwuWaitsOnCpu(e.host().kernel().ttwuWaitsOnCpu());
    host.setIrqTimeAccounting(e.host().kernel().irqTimeAccounting());
    // the hypervisor: settings the profile does not hold (directed-yield variant, ple-shrink, host background)
    var hypervisor = hypervisorAdjust.apply(HypervisorSettings.adjust(Platforms.hypervisor(profile), e.hypervisor()));
    // scheduling domains from the profile's topology; the host's background activity
    Platforms.configureHost(host, profile, hypervisor.hostActivity());
    Assembly a = new Assembly(machine, profile, host, e.host().locks());
    a.checkLocks = checks.invariants();
    CostSource costs = CostSource.of(profile);
    for (int i = 0; i < e.vms().size(); i++) {
      VmSpec spec = e.vms().get(i);
      KernelSpec kernel = spec.kernel();
      KernelConfig guestConfig = Platforms.guestKernel(profile, spec.vcpus(), ttwuQueue(kernel), spec.preemptible());
      Vm vm = machine.createVm(spec.name(), spec.vcpus(), guestConfig, scheduler(spec.scheduler()), hypervisor,
          pins(spec.pinning()));
      Platforms.configureGuest(vm, profile);
      vm.guest().setTtwuWaitsOnCpu(kernel.ttwuWaitsOnCpu());
      if (kernel.reschedIpi()) {
        Platforms.configureIpis(profile, vm);
      }
      if (kernel.stealTimeAccounting() != null) {
        vm.guest().setStealTimeAccounting(kernel.stealTimeAccounting());
      }
      a.vms.add(vm);
      a.vmSpecs.add(spec);
    }
    for (int i = 0; i < e.background().vms().size(); i++) {
      BackgroundSpec.BackgroundVm spec = e.background().vms().get(i);
      KernelConfig guestConfig = Platforms.guestKernel(profile, spec.vcpus(), TtwuQueueMode.CROSS_LLC, false);
      Vm vm = machine.createVm(spec.name(), spec.vcpus(), guestConfig, scheduler(Choice.of("cfs")), hypervisor,
          pins(spec.pinning()));
      Platforms.configureGuest(vm, profile);
      Program hog = hog("background_vm_loop");
      for (int c = 0; c < spec.vcpus(); c++) {
        vm.guest().spawn("hog/" + c, hog, c);
      }
    }
    Program hostHog = hog("host_hog_loop");
    for (int t = 0; t < e.background().hostThreads(); t++) {
      host.spawn("host_hog/" + t, hostHog, t % cpus);
    }
    // Devices first (workloads find them in the context), then workloads, in model order.
    for (int i = 0; i < e.vms().size(); i++) {
      VmSpec spec = e.vms().get(i);
      Vm vm = a.vms.get(i);
      List<Device> vmDevices = new ArrayList<>();
      for (int d = 0; d < spec.devices().size(); d++) {
        ComponentSpec c = spec.devices().get(d);
        String path = "vms[" + i + "].devices[" + d + "]";
        try {
          DeviceFactory f = plugins.devices().get(c.type());
          Device device = guarded(f, "creating " + path, () -> f.create(c.name(),
              ExperimentPlugins.normalizeOptions(f, profileDefaults(f, c.options(), profile))));
          guarded(f, "attaching " + path, () -> {
            device.attach(new DeviceContext(machine, vm, a, costs));
            return device;
          });
          vmDevices.add(device);
          a.devices.add(device);
          a.deviceVms.add(vm.name());
        } catch (IllegalArgumentException | IllegalStateException ex) {
          problems.add(new Problem(path, oneLine(ex.getMessage())));
        }
        checkBuilding(deadline, deadlineSource, path);
      }
      for (int w = 0; w < spec.workloads().size(); w++) {
        ComponentSpec c = spec.workloads().get(w);
        String path = "vms[" + i + "].workloads[" + w + "]";
        try {
          WorkloadFactory f = plugins.workloads().get(c.type());
          Workload workload = guarded(f, "creating " + path, () -> f.create(c.name(),
              ExperimentPlugins.normalizeOptions(f, c.options())));
          guarded(f, "starting " + path, () -> {
            workload.start(new WorkloadContext(machine, vm, vmDevices, costs, a));
            return workload;
          });
          a.workloads.add(workload);
          a.workloadVms.add(vm.name());
        } catch (IllegalArgumentException | IllegalStateException ex) {
          problems.add(new Problem(path, oneLine(ex.getMessage())));
        }
        checkBuilding(deadline, deadlineSource, path);
      }
    }
    if (!problems.isEmpty()) {
      throw new InvalidExperimentException("", problems);
    }
    return a;
  }

  private Scheduler scheduler(Choice c) {
    SchedulerFactory f = plugins.schedulers().get(c.name());
    return guarded(f, "creating", () -> f.create(ExperimentPlugins.normalizeOptions(f, c.options())));
  }

  /**
   * Runs a plugin's creation or start-up step. A rejected configuration (IllegalArgumentException,
   * IllegalStateException) stays a problem of the experiment file; anything else is a fault of the
   * plugin and fails the run with the plugin's kind, name and the phase.
   */
  private static <T> T guarded(org.lockvisor.core.plugin.Plugin plugin, String phase, java.util.function.Supplier<T> step) {
    try {
      return step.get();
    } catch (IllegalArgumentException | IllegalStateException ex) {
      throw ex;
    } catch (RuntimeException | LinkageError ex) {
      throw new SimulationFailedException(plugin.kind() + " [" + plugin.name() + "] failed while " + phase + ": "
          + PluginFault.describe(ex), ex);
    }
  }

  private static TtwuQueueMode ttwuQueue(KernelSpec kernel) {
    return switch (kernel.ttwuQueue()) {
      case KernelSpec.ANY_REMOTE -> TtwuQueueMode.ANY_REMOTE;
      case KernelSpec.NEVER -> TtwuQueueMode.NEVER;
      default -> TtwuQueueMode.CROSS_LLC;
    };
  }

  private static int[] pins(List<Integer> pinning) {
    return pinning.stream().mapToInt(Integer::intValue).toArray();
  }

  private static Program hog(String symbol) {
    Program loop = Program.named(symbol).userWork(HOG_QUANTUM_NS, symbol).build();
    return Program.named(symbol).loopWhile(t -> true, loop).build();
  }

  private static String oneLine(String message) {
    return message == null ? "rejected its configuration" : message.strip().replaceAll("\\s*\\R\\s*", "; ");
  }

  /**
   * A device's options with the three the arch profile decides filled in where the experiment left
   * them out, for any device that declares them: {@code notify-path} from the profile's notify
   * path ({@code ioeventfd} for an in-kernel ioeventfd exit, {@code userspace} for an exit to the
   * VMM under its global lock), {@code posted-interrupts} from whether the hypervisor posts
   * interrupts, and {@code interrupt-transport}: {@code mmio-level} where the notify exits to the
   * userspace VMM, else {@code msi}: KVM/ARM gained MMIO ioeventfd and irqfd together (4.1), so a
   * hypervisor whose notify exits to QEMU has QEMU raise and lower the line with {@code
   * KVM_IRQ_LINE}, and QEMU 2.0's arm {@code virt} board has only virtio-mmio (hw/arm/virt.c
   * {@code create_virtio_devices}): a level-triggered SPI. A value the experiment gives wins; a
   * notify path the device does not list (PowerVM's hcall) leaves the device's own default.
   */
  static Map<String, String> profileDefaults(DeviceFactory f, Map<String, String> options, ArchProfile profile) {
    Map<String, String> out = new java.util.LinkedHashMap<>(options);
    for (org.lockvisor.core.plugin.PluginOption o : f.options()) {
      if (out.containsKey(o.name())) {
        continue;
      }
      if (o.name().equals("notify-path")) {
        String derived = switch (profile.hypervisor().notifyPath()) {
          case IOEVENTFD_IN_KERNEL -> "ioeventfd";
          case USERSPACE_VMM_UNDER_GLOBAL_LOCK -> "userspace";
          case HCALL_TO_IO_SERVER -> null;
        };
        if (derived != null && o.allowed().contains(derived)) {
          out.put(o.name(), derived);
        }
      } else if (o.name().equals("posted-interrupts") && o.type() == org.lockvisor.core.plugin.PluginOption.Type.BOOLEAN) {
        out.put(o.name(), Boolean.toString(profile.hypervisor().postedInterrupts()));
      } else if (o.name().equals("interrupt-transport")) {
        String derived = profile.hypervisor().notifyPath()
            == org.lockvisor.arch.spi.HypervisorBehaviour.NotifyPath.USERSPACE_VMM_UNDER_GLOBAL_LOCK ? "mmio-level" : "msi";
        if (o.allowed().contains(derived)) {
          out.put(o.name(), derived);
        }
      }
    }
    return out;
  }
}

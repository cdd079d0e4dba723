package org.lockvisor.experiment.model;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSortedMap;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An experiment: the arch profile, the host, the VMs with their kernels, devices and workloads,
 * background load, warm-up, duration, seed and named variants (each a set of overrides on this
 * base, written as {@code path: value} like {@code lockvisor run --set}).
 *
 * <p>Immutable. Built by {@link #builder(String)} or bound from YAML by {@link ExperimentYaml};
 * both end in the same record and pass the same {@link ExperimentValidator}.
 *
 * @param name experiment name
 * @param description free text
 * @param arch arch profile name, e.g. {@code x86_64-kvm}
 * @param seed root seed of every random stream
 * @param warmupNs simulated time before measurement starts
 * @param durationNs simulated measurement time (0 when {@code untilDone})
 * @param host the host
 * @param vms the measured VMs
 * @param background background load
 * @param variants named variants: overrides ({@code path -> value}) on this experiment
 * @param replications runs per sweep point, each with a seed derived from (seed, point, replication)
 * @param sweep parameters to sweep: path to the list of its values; the points are the cartesian
 *     product, the first parameter varying slowest
 * @param untilDone measure until every workload has finished ({@code duration: until-done})
 *     instead of for {@code durationNs}
 * @param maxDurationNs the simulated-time cap of an until-done measurement: a workload still
 *     running then fails the run (ignored with a fixed duration)
 * @param doneCheckIntervalNs how often, in simulated time, an until-done run asks its workloads whether
 *     they have finished; the measurement ends at the first check after the last one did
 * @param hypervisor the {@code hypervisor:} section: settings that change the arch profile's
 *     hypervisor for this experiment ({@link HypervisorSettings}); empty: the profile's own
 */
public record Experiment(
    String name,
    String description,
    String arch,
    long seed,
    long warmupNs,
    long durationNs,
    HostSpec host,
    List<VmSpec> vms,
    BackgroundSpec background,
    Map<String, Map<String, String>> variants,
    int replications,
    Map<String, List<String>> sweep,
    boolean untilDone,
    long maxDurationNs,
    long doneCheckIntervalNs,
    Map<String, String> hypervisor,
    long sampleIntervalNs) {

  public static final String DEFAULT_ARCH = "x86_64-kvm";
  public static final long DEFAULT_SEED = 1;
  public static final long DEFAULT_WARMUP_NS = 10_000_000L;
  public static final long DEFAULT_DURATION_NS = 100_000_000L;
  /** The YAML value of {@code duration} that runs the workloads to completion. */
  public static final String UNTIL_DONE = "until-done";
  public static final long DEFAULT_MAX_DURATION_NS = 60_000_000_000L;
  public static final long DEFAULT_DONE_CHECK_INTERVAL_NS = 1_000_000L;

  public Experiment {
    name = name == null ? "" : name;
    description = description == null ? "" : description;
    arch = arch == null ? DEFAULT_ARCH : arch;
    host = host == null ? HostSpec.defaults() : host;
    vms = vms == null ? ImmutableList.of() : ImmutableList.copyOf(vms);
    background = background == null ? BackgroundSpec.none() : background;
    ImmutableSortedMap.Builder<String, Map<String, String>> v = ImmutableSortedMap.naturalOrder();
    if (variants != null) {
      variants.forEach((k, overrides) -> v.put(k, ImmutableMap.copyOf(overrides)));
    }
    variants = v.build();
    ImmutableMap.Builder<String, List<String>> sw = ImmutableMap.builder();
    if (sweep != null) {
      sweep.forEach((k, values) -> sw.put(k, ImmutableList.copyOf(values)));
    }
    sweep = sw.buildOrThrow();
    durationNs = untilDone ? 0 : durationNs;
    hypervisor = hypervisor == null ? ImmutableSortedMap.of() : ImmutableSortedMap.copyOf(hypervisor);
  }

  /** An experiment without the guest sampler. */
  public Experiment(String name, String description, String arch, long seed, long warmupNs, long durationNs,
      HostSpec host, List<VmSpec> vms, BackgroundSpec background, Map<String, Map<String, String>> variants,
      int replications, Map<String, List<String>> sweep, boolean untilDone, long maxDurationNs,
      long doneCheckIntervalNs, Map<String, String> hypervisor) {
    this(name, description, arch, seed, warmupNs, durationNs, host, vms, background, variants, replications, sweep,
        untilDone, maxDurationNs, doneCheckIntervalNs, hypervisor, 0);
  }

  /** An experiment with the arch profile's hypervisor as it is (no {@code hypervisor:} section). */
  public Experiment(String name, String description, String arch, long seed, long warmupNs, long durationNs,
      HostSpec host, List<VmSpec> vms, BackgroundSpec background, Map<String, Map<String, String>> variants,
      int replications, Map<String, List<String>> sweep, boolean untilDone, long maxDurationNs,
      long doneCheckIntervalNs) {
    this(name, description, arch, seed, warmupNs, durationNs, host, vms, background, variants, replications, sweep,
        untilDone, maxDurationNs, doneCheckIntervalNs, Map.of());
  }

  /** An experiment measured for a fixed {@code durationNs} (the form before until-done runs). */
  public Experiment(String name, String description, String arch, long seed, long warmupNs, long durationNs,
      HostSpec host, List<VmSpec> vms, BackgroundSpec background, Map<String, Map<String, String>> variants,
      int replications, Map<String, List<String>> sweep) {
    this(name, description, arch, seed, warmupNs, durationNs, host, vms, background, variants, replications, sweep,
        false, DEFAULT_MAX_DURATION_NS, DEFAULT_DONE_CHECK_INTERVAL_NS);
  }

  /** The same experiment without sweep and replications (one point of a sweep). */
  public Experiment withoutSweep() {
    return new Experiment(name, description, arch, seed, warmupNs, durationNs, host, vms, background, variants, 1,
        Map.of(), untilDone, maxDurationNs, doneCheckIntervalNs, hypervisor, sampleIntervalNs);
  }

  public static Builder builder(String name) {
    return new Builder(name);
  }

  /** A builder holding this experiment's values. */
  public Builder toBuilder() {
    Builder b = new Builder(name);
    b.description = description;
    b.arch = arch;
    b.seed = seed;
    b.warmupNs = warmupNs;
    b.durationNs = durationNs;
    b.host = host;
    b.vms.addAll(vms);
    b.background = background;
    b.variants.putAll(variants);
    b.replications = replications;
    b.sweep.putAll(sweep);
    b.untilDone = untilDone;
    b.maxDurationNs = maxDurationNs;
    b.doneCheckIntervalNs = doneCheckIntervalNs;
    b.hypervisor.putAll(hypervisor);
    b.sampleIntervalNs = sampleIntervalNs;
    return b;
  }

  /** Fluent builder; {@link #build()} checks the structure (plugins are checked by the validator). */
  public static final class Builder {
    private final String name;
    private String description = "";
    private String arch = DEFAULT_ARCH;
    private long seed = DEFAULT_SEED;
    private long warmupNs = DEFAULT_WARMUP_NS;
    private long durationNs = DEFAULT_DURATION_NS;
    private HostSpec host = HostSpec.defaults();
    private final List<VmSpec> vms = new ArrayList<>();
    private BackgroundSpec background = BackgroundSpec.none();
    private final Map<String, Map<String, String>> variants = new LinkedHashMap<>();
    private int replications = 1;
    private final Map<String, List<String>> sweep = new LinkedHashMap<>();
    private boolean untilDone;
    private long maxDurationNs = DEFAULT_MAX_DURATION_NS;
    private long doneCheckIntervalNs = DEFAULT_DONE_CHECK_INTERVAL_NS;
    private long sampleIntervalNs;
    private final Map<String, String> hypervisor = new LinkedHashMap<>();

    private Builder(String name) {
      this.name = name;
    }

    public Builder description(String text) {
      this.description = text;
      return this;
    }

    public Builder arch(String profile) {
      this.arch = profile;
      return this;
    }

    public Builder seed(long s) {
      this.seed = s;
      return this;
    }

    public Builder warmupNs(long ns) {
      this.warmupNs = ns;
      return this;
    }

    /** A fixed measurement window (the default, 100 ms); replaces {@link #untilDone}. */
    public Builder durationNs(long ns) {
      this.durationNs = ns;
      this.untilDone = false;
      return this;
    }

    /**
     * Measures until every workload has finished ({@code duration: until-done}), for at most
     * {@code maxNs} of simulated time (a workload still running then fails the run); every
     * workload must be one that {@link org.lockvisor.workloads.spi.Workload#finishes() finishes}.
     */
    public Builder untilDone(long maxNs) {
      this.untilDone = true;
      this.maxDurationNs = maxNs;
      return this;
    }

    /** How often an until-done run checks whether its workloads have finished (default 1 ms). */
    public Builder doneCheckIntervalNs(long ns) {
      this.doneCheckIntervalNs = ns;
      return this;
    }

    /** The period of the runner's guest sampler ({@code sample-interval}); 0 samples nothing. */
    public Builder sampleIntervalNs(long ns) {
      this.sampleIntervalNs = ns;
      return this;
    }

    /** Host CPUs and scheduler; the other host settings keep their values. */
    public Builder host(int cpus, String scheduler) {
      this.host = new HostSpec(cpus, Choice.of(scheduler), host.preemptible(), host.exclusivePinning(), host.locks(),
          host.kernel());
      return this;
    }

    public Builder host(HostSpec spec) {
      this.host = spec;
      return this;
    }

    public Builder hostLocks(LockChoices locks) {
      this.host = new HostSpec(host.cpus(), host.scheduler(), host.preemptible(), host.exclusivePinning(), locks,
          host.kernel());
      return this;
    }

    /**
     * The host kernel's wakeup behaviour, e.g. {@code KernelSpec.defaults().withTtwuQueue("any-remote")
     * .withTtwuWaitsOnCpu(true)} for a 3.0 host.
     */
    public Builder hostKernel(KernelSpec kernel) {
      this.host = new HostSpec(host.cpus(), host.scheduler(), host.preemptible(), host.exclusivePinning(),
          host.locks(), kernel);
      return this;
    }

    public Builder exclusivePinning(boolean exclusive) {
      this.host = new HostSpec(host.cpus(), host.scheduler(), host.preemptible(), exclusive, host.locks(),
          host.kernel());
      return this;
    }

    public Builder vm(VmSpec vm) {
      this.vms.add(vm);
      return this;
    }

    /** Adds a VM built fluently: {@code .vm("vm0", vm -> vm.vcpus(4).spinlock("ticket"))}. */
    public Builder vm(String vmName, java.util.function.Consumer<VmBuilder> spec) {
      VmBuilder b = new VmBuilder(vmName);
      spec.accept(b);
      this.vms.add(b.build());
      return this;
    }

    public Builder hostThreads(int n) {
      this.background = new BackgroundSpec(n, background.vms());
      return this;
    }

    public Builder backgroundVm(String vmName, int vcpus, Integer... pinning) {
      List<BackgroundSpec.BackgroundVm> list = new ArrayList<>(background.vms());
      list.add(new BackgroundSpec.BackgroundVm(vmName, vcpus, List.of(pinning)));
      this.background = new BackgroundSpec(background.hostThreads(), list);
      return this;
    }

    /** A named variant: overrides written as {@code path -> value}, e.g. {@code vms[0].locks.spinlock -> ticket}. */
    public Builder variant(String variantName, Map<String, String> overrides) {
      this.variants.put(variantName, ImmutableMap.copyOf(overrides));
      return this;
    }

    /** Runs per sweep point (each with its own derived seed). */
    public Builder replications(int n) {
      this.replications = n;
      return this;
    }

    /** A swept parameter: {@code path} takes each of {@code values} (cartesian product with the others). */
    public Builder sweep(String path, String... values) {
      this.sweep.put(path, List.of(values));
      return this;
    }

    /**
     * One setting of the {@code hypervisor:} section ({@link HypervisorSettings}), e.g. {@code
     * hypervisor("ple", "false")}; checked against the arch profile by the validator.
     */
    public Builder hypervisor(String key, String value) {
      this.hypervisor.put(key, value);
      return this;
    }

    /** The experiment, if its structure is sound. */
    public Experiment build() {
      Experiment e = new Experiment(name, description, arch, seed, warmupNs, durationNs, host, vms, background,
          variants, replications, sweep, untilDone, maxDurationNs, doneCheckIntervalNs, hypervisor, sampleIntervalNs);
      List<Problem> problems = ExperimentValidator.structure(e);
      if (!problems.isEmpty()) {
        throw new InvalidExperimentException("builder", problems);
      }
      return e;
    }
  }

  /** Fluent builder of one {@link VmSpec}. */
  public static final class VmBuilder {
    private final String name;
    private int vcpus = 1;
    private List<Integer> pinning = List.of();
    private Choice scheduler = Choice.of(HostSpec.DEFAULT_SCHEDULER);
    private boolean preemptible;
    private LockChoices locks = LockChoices.defaults();
    private KernelSpec kernel = KernelSpec.defaults();
    private final List<ComponentSpec> devices = new ArrayList<>();
    private final List<ComponentSpec> workloads = new ArrayList<>();

    VmBuilder(String name) {
      this.name = name;
    }

    public VmBuilder vcpus(int n) {
      this.vcpus = n;
      return this;
    }

    public VmBuilder pinning(Integer... cpus) {
      this.pinning = List.of(cpus);
      return this;
    }

    public VmBuilder scheduler(String plugin) {
      this.scheduler = Choice.of(plugin);
      return this;
    }

    public VmBuilder scheduler(String plugin, Map<String, String> options) {
      this.scheduler = Choice.of(plugin, options);
      return this;
    }

    public VmBuilder preemptible(boolean on) {
      this.preemptible = on;
      return this;
    }

    public VmBuilder spinlock(String plugin) {
      this.locks = locks.withSpinlock(plugin);
      return this;
    }

    public VmBuilder mutex(String plugin) {
      this.locks = locks.withMutex(plugin);
      return this;
    }

    public VmBuilder rwsem(String plugin) {
      this.locks = locks.withRwsem(plugin);
      return this;
    }

    /** The rwlock_t algorithm (by default the architecture's: qrwlock, ppc-splpar-rwlock). */
    public VmBuilder rwlock(String plugin) {
      this.locks = locks.withRwlock(plugin);
      return this;
    }

    public VmBuilder vcpuIsPreempted(boolean on) {
      this.locks = locks.withVcpuIsPreempted(on);
      return this;
    }

    /** The guest kernel's wakeup, IPI and steal-time behaviour as a whole. */
    public VmBuilder kernel(KernelSpec spec) {
      this.kernel = spec;
      return this;
    }

    /** try_to_wake_up's wake-list mode: {@code cross-llc}, {@code any-remote} or {@code never}. */
    public VmBuilder ttwuQueue(String mode) {
      this.kernel = kernel.withTtwuQueue(mode);
      return this;
    }

    /** try_to_wake_up waits for a wakee still being switched out (3.0 on x86). */
    public VmBuilder ttwuWaitsOnCpu(boolean on) {
      this.kernel = kernel.withTtwuWaitsOnCpu(on);
      return this;
    }

    /** Priced reschedule IPIs for remote preemption, taken with the platform's accept path. */
    public VmBuilder reschedIpi(boolean on) {
      this.kernel = kernel.withReschedIpi(on);
      return this;
    }

    /** CONFIG_PARAVIRT_TIME_ACCOUNTING on or off (the default follows the arch profile). */
    public VmBuilder stealTimeAccounting(boolean on) {
      this.kernel = kernel.withStealTimeAccounting(on);
      return this;
    }

    /** The guest's CONFIG_HZ (100, 250 or 1000; the default follows the arch profile). */
    public VmBuilder hz(int value) {
      this.kernel = kernel.withHz(value);
      return this;
    }

    public VmBuilder device(String instance, String type, Map<String, String> options) {
      this.devices.add(new ComponentSpec(instance, type, options));
      return this;
    }

    public VmBuilder workload(String instance, String type, Map<String, String> options) {
      this.workloads.add(new ComponentSpec(instance, type, options));
      return this;
    }

    public VmSpec build() {
      return new VmSpec(name, vcpus, pinning, scheduler, preemptible, locks, devices, workloads, kernel);
    }
  }
}

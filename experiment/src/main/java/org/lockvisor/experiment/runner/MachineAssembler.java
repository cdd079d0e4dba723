package org.lockvisor.experiment.runner;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.lockvisor.arch.spi.ArchCosts;
import org.lockvisor.arch.spi.ArchProfile;
import org.lockvisor.arch.spi.ArchProfileFactory;
import org.lockvisor.core.plugin.OptionBinder;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.devices.spi.Device;
import org.lockvisor.devices.spi.DeviceContext;
import org.lockvisor.devices.spi.DeviceFactory;
import org.lockvisor.experiment.SimulationFailedException;
import org.lockvisor.experiment.check.Perturbation;
import org.lockvisor.experiment.check.RunChecks;
import org.lockvisor.experiment.model.BackgroundSpec;
import org.lockvisor.experiment.model.Choice;
import org.lockvisor.experiment.model.ComponentSpec;
import org.lockvisor.experiment.model.Experiment;
import org.lockvisor.experiment.model.ExperimentPlugins;
import org.lockvisor.experiment.model.HypervisorSettings;
import org.lockvisor.experiment.model.InvalidExperimentException;
import org.lockvisor.experiment.model.KernelSpec;
import org.lockvisor.experiment.model.Problem;
import org.lockvisor.experiment.model.VmSpec;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Scheduler;
import org.lockvisor.machine.Vm;
import org.lockvisor.machine.config.KernelConfig;
import org.lockvisor.machine.config.TtwuQueueMode;
import org.lockvisor.platform.Platforms;
import org.lockvisor.scheduler.spi.SchedulerContext;
import org.lockvisor.scheduler.spi.SchedulerFactory;
import org.lockvisor.workloads.spi.Workload;
import org.lockvisor.workloads.spi.WorkloadContext;
import org.lockvisor.workloads.spi.WorkloadFactory;

/**
 * Builds the machine an {@link Experiment} describes from the plugins it names, without running
 * it: the host kernel and each guest kernel from the arch profile ({@link Platforms}), schedulers
 * from their plugins, vCPU threads pinned as the model says, {@code vcpu_is_preempted} semantics
 * from the profile's hypervisor with each VM's switch, devices attached then workloads started in
 * model order, background VMs (one CPU-bound task per vCPU) and CPU-bound host threads pinned
 * round-robin. Every lock created for devices and workloads is registered for the run's lock_stat
 * ({@link AssembledMachine}). Each kernel's {@code kernel:} section sets its wakeup path
 * (TTWU_QUEUE mode, waiting on {@code on_cpu}), a guest's priced reschedule IPIs ({@link
 * Platforms#configureIpis}) and its steal-time accounting; a sleeping lock's {@code wait_lock} is
 * its kernel's spinlock choice unless the lock's options name one.
 *
 * <p>A component that rejects its configuration (IllegalArgumentException,
 * IllegalStateException) is a problem of the experiment at its path; any other failure is a fault
 * of the plugin. Building is bounded by a heap estimate ({@link MemoryBudget}) checked before
 * anything is allocated, and by a wall-clock deadline checked between components.
 */
final class MachineAssembler {

  /** Work quantum of a CPU-bound background thread (it loops forever). */
  static final long HOG_QUANTUM_NS = 1_000_000;

  private final ExperimentPlugins plugins;
  /** Heap one machine may take (see {@link MemoryBudget}); 0: three quarters of the JVM's. */
  private volatile long memoryLimit;
  private volatile String memoryLimitSource = "";
  /** {@link System#nanoTime()} after which building a machine stops (Long.MAX_VALUE: never). */
  private volatile long buildDeadline = Long.MAX_VALUE;
  private volatile String buildDeadlineSource = "";
  /** {@link System#nanoTime()} when the machine now being built began (0: none is being built). */
  private final java.util.concurrent.atomic.AtomicLong buildingSince = new java.util.concurrent.atomic.AtomicLong();
  private java.util.function.UnaryOperator<org.lockvisor.machine.config.HypervisorConfig> hypervisorAdjust =
      java.util.function.UnaryOperator.identity();

  MachineAssembler(ExperimentPlugins plugins) {
    this.plugins = plugins;
  }

  /** See {@link ExperimentRunner#limitMemory}. */
  void limitMemory(long bytes, String source) {
    this.memoryLimit = bytes;
    this.memoryLimitSource = source;
  }

  /** See {@link ExperimentRunner#limitBuilding}. */
  void limitBuilding(long deadlineNanos, String source) {
    this.buildDeadline = deadlineNanos;
    this.buildDeadlineSource = source;
  }

  /** See {@link ExperimentRunner#buildingSince}. */
  long buildingSince() {
    return buildingSince.get();
  }

  /** See {@link ExperimentRunner#adjustHypervisor}. */
  void adjustHypervisor(java.util.function.UnaryOperator<org.lockvisor.machine.config.HypervisorConfig> adjust) {
    this.hypervisorAdjust = java.util.Objects.requireNonNull(adjust, "adjust");
  }

  /**
   * Refuses {@code e} when its heap estimate is over the limit ({@link InvalidExperimentException}
   * naming its largest component).
   */
  void checkMemory(Experiment e) {
    // --max-memory can only lower the limit: above the heap it would trade a refusal for an OutOfMemoryError
    long heap = MemoryBudget.defaultLimit();
    boolean given = memoryLimit > 0 && memoryLimit < heap;
    MemoryBudget.check(e, plugins, given ? memoryLimit : heap, () -> given ? memoryLimitSource
        : "three quarters of the JVM heap of " + MemoryBudget.bytes(Runtime.getRuntime().maxMemory()));
  }

  /** Throws when building has run past {@code deadline} (checked between components). */
  private static void checkBuilding(long deadline, String source, String after) {
    if (deadline != Long.MAX_VALUE && System.nanoTime() > deadline) {
      throw new SimulationFailedException("wall-clock budget (" + source + ") exceeded while building the machine,"
          + " after " + after + "; make the experiment smaller or raise the budget");
    }
  }

  /** Builds the machine of {@code e}; a component that rejects its configuration is a problem at its path. */
  AssembledMachine assemble(Experiment e) {
    return assemble(e, RunChecks.NONE);
  }

  AssembledMachine assemble(Experiment e, RunChecks checks) {
    checkMemory(e); // before anything is allocated
    buildingSince.set(System.nanoTime());
    try {
      return build(e, checks);
    } finally {
      buildingSince.set(0);
    }
  }

  private AssembledMachine build(Experiment e, RunChecks checks) {
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
    ArchCosts costs = ArchCosts.of(profile);
    Simulation simulation = new Simulation(e.seed());
    Machine machine = new Machine(simulation);
    machine.setKernelSymbols(profile.symbols()); // the profile's architecture names every symbol it charges
    if (checks.perturbSeed() != 0) {
      Perturbation.install(machine, checks.perturbSeed(), checks.jitterPercent());
    }
    int cpus = e.host().cpus() > 0 ? e.host().cpus() : profile.topology().cpus();
    KernelConfig hostConfig = Platforms.hostKernel(profile, ttwuQueue(e.host().kernel()), e.host().preemptible());
    Kernel host = machine.createHost("host", cpus, hostConfig, scheduler(e.host().scheduler(), "host", costs));
    Platforms.configureCacheLines(machine, profile);
    host.setTtwuWaitsOnCpu(e.host().kernel().ttwuWaitsOnCpu());
    host.setIrqTimeAccounting(e.host().kernel().irqTimeAccounting());
    // the hypervisor: settings the profile does not hold (directed-yield variant, ple-shrink, host background)
    var hypervisor = hypervisorAdjust.apply(HypervisorSettings.adjust(Platforms.hypervisor(profile), e.hypervisor()));
    // scheduling domains from the profile's topology; the host's background activity
    Platforms.configureHost(host, profile, hypervisor.hostActivity());
    AssembledMachine a = new AssembledMachine(plugins, machine, profile, host, e.host().locks());
    a.checkLocks = checks.invariants();
    for (int i = 0; i < e.vms().size(); i++) {
      VmSpec spec = e.vms().get(i);
      KernelSpec kernel = spec.kernel();
      KernelConfig guestConfig = Platforms.guestKernel(profile, spec.vcpus(), ttwuQueue(kernel), spec.preemptible());
      if (kernel.hz() != null) {
        // CONFIG_HZ of this guest instead of the profile's guestHz: the tick's period, nothing else
        guestConfig = guestConfig.withTickNs(1_000_000_000L / kernel.hz());
      }
      Vm vm = machine.createVm(spec.name(), spec.vcpus(), guestConfig, scheduler(spec.scheduler(), spec.name(), costs), hypervisor,
          pins(spec.pinning()));
      Platforms.configureGuest(vm, profile);
      if (kernel.threadsPerCore() > 1) {
        // what the hypervisor presents: consecutive vCPUs as the threads of one core (SMT siblings)
        vm.guest().setTopology(Platforms.guestTopology(profile, spec.vcpus(), kernel.threadsPerCore()));
      }
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
      Vm vm = machine.createVm(spec.name(), spec.vcpus(), guestConfig, scheduler(Choice.of("cfs"), spec.name(), costs), hypervisor,
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
      Map<String, Device> vmDevices = new LinkedHashMap<>();
      for (int d = 0; d < spec.devices().size(); d++) {
        ComponentSpec c = spec.devices().get(d);
        String path = "vms[" + i + "].devices[" + d + "]";
        try {
          DeviceFactory f = plugins.devices().get(c.type());
          DeviceContext context = guarded(f, "creating " + path, () -> DeviceContext.of(c.name(),
              OptionBinder.bind(f, ExperimentPlugins.normalizeOptions(f, profileDefaults(f, c.options(), profile))),
              costs, a, vm));
          Device device = guarded(f, "creating " + path, () -> f.create(context));
          guarded(f, "attaching " + path, () -> {
            device.attach(context);
            return device;
          });
          vmDevices.put(device.name(), device);
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
          WorkloadContext context = guarded(f, "creating " + path, () -> WorkloadContext.of(c.name(),
              OptionBinder.bind(f, ExperimentPlugins.normalizeOptions(f, c.options())), costs, a, vm, vmDevices));
          Workload workload = guarded(f, "creating " + path, () -> f.create(context));
          guarded(f, "starting " + path, () -> {
            workload.start(context);
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
    if (e.sampleIntervalNs() > 0) {
      // after every workload has started: the sampler's first event comes after what they scheduled
      a.sampler = new GuestSampler(machine, a.vms, e.sampleIntervalNs());
      a.sampler.start();
    }
    return a;
  }

  private Scheduler scheduler(Choice c, String kernel, ArchCosts costs) {
    SchedulerFactory f = plugins.schedulers().get(c.name());
    return guarded(f, "creating", () -> f.create(SchedulerContext.of(kernel,
        OptionBinder.bind(f, ExperimentPlugins.normalizeOptions(f, c.options())), costs)));
  }

  /**
   * Runs a plugin's creation or start-up step. A rejected configuration (IllegalArgumentException,
   * IllegalStateException) stays a problem of the experiment file; anything else is a fault of the
   * plugin and fails the run with the plugin's kind, name and the phase.
   */
  static <T> T guarded(org.lockvisor.core.plugin.Plugin plugin, String phase, java.util.function.Supplier<T> step) {
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

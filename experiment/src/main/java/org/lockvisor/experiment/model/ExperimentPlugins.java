package org.lockvisor.experiment.model;

import com.google.common.collect.ImmutableSortedMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.lockvisor.arch.spi.ArchCosts;
import org.lockvisor.devices.spi.Device;
import org.lockvisor.devices.spi.DeviceContext;
import org.lockvisor.locking.spi.KernelLocks;
import org.lockvisor.machine.Scheduler;
import org.lockvisor.scheduler.spi.SchedulerContext;
import org.lockvisor.workloads.spi.Workload;
import org.lockvisor.workloads.spi.WorkloadContext;
import org.lockvisor.arch.spi.ArchProfile;
import org.lockvisor.arch.spi.ArchProfileFactory;
import org.lockvisor.core.plugin.Plugin;
import org.lockvisor.core.plugin.OptionBinder;
import org.lockvisor.core.plugin.PluginDiscoveryException;
import org.lockvisor.devices.spi.DeviceFactory;
import org.lockvisor.locking.spi.LockCapability;
import org.lockvisor.locking.spi.LockFactory;
import org.lockvisor.scheduler.spi.SchedulerFactory;
import org.lockvisor.workloads.spi.WorkloadFactory;

/**
 * The plugins an experiment can name, by kind, sorted by name. The composition root builds it
 * from the multibound maps; tests and embedders may build it by hand. A lock plugin declaring a
 * capability outside {@link LockCapability} is refused here ({@link PluginDiscoveryException}).
 */
public final class ExperimentPlugins {
  private final ImmutableSortedMap<String, ArchProfileFactory> arches;
  private final ImmutableSortedMap<String, SchedulerFactory> schedulers;
  private final ImmutableSortedMap<String, LockFactory> locks;
  private final ImmutableSortedMap<String, DeviceFactory> devices;
  private final ImmutableSortedMap<String, WorkloadFactory> workloads;

  public ExperimentPlugins(
      Map<String, ArchProfileFactory> arches,
      Map<String, SchedulerFactory> schedulers,
      Map<String, LockFactory> locks,
      Map<String, DeviceFactory> devices,
      Map<String, WorkloadFactory> workloads) {
    this.arches = ImmutableSortedMap.copyOf(arches);
    this.schedulers = ImmutableSortedMap.copyOf(schedulers);
    this.locks = ImmutableSortedMap.copyOf(locks);
    // capabilities are a closed vocabulary: a typo ("FIFO") fails here, not silently in a test
    for (LockFactory f : this.locks.values()) {
      try {
        LockCapability.check(f);
      } catch (IllegalArgumentException e) {
        throw new PluginDiscoveryException(e.getMessage() + " (" + f.getClass().getName() + ")");
      }
    }
    this.devices = ImmutableSortedMap.copyOf(devices);
    this.workloads = ImmutableSortedMap.copyOf(workloads);
  }

  /**
   * Every plugin on {@code loader}'s class path, found through the {@link PluginRegistry} (no
   * injector).
   *
   * @throws PluginDiscoveryException on two plugins of one kind under one name, naming both
   */
  public static ExperimentPlugins discover(ClassLoader loader) {
    return PluginRegistry.discover(PluginRegistry.MACHINE_KINDS, loader).experimentPlugins();
  }

  /**
   * The same plugins with every arch profile passed through {@code change} (cost what-ifs of
   * {@code run --set cost.<profile>.<KEY>=...}); names, versions and metadata are the profiles' own.
   */
  public ExperimentPlugins withArchProfiles(java.util.function.UnaryOperator<ArchProfile> change) {
    Map<String, ArchProfileFactory> changed = new TreeMap<>();
    arches.forEach((name, f) -> changed.put(name, new ArchProfileFactory() {
      @Override
      public String name() {
        return f.name();
      }

      @Override
      public String summary() {
        return f.summary();
      }

      @Override
      public String version() {
        return f.version();
      }

      @Override
      public ArchProfile create(org.lockvisor.core.plugin.PluginContext context) {
        return change.apply(f.create());
      }

      @Override
      public java.util.Set<org.lockvisor.arch.spi.HypervisorBehaviour.VcpuPreemptedSemantics> vcpuPreemptedSemantics() {
        return f.vcpuPreemptedSemantics();
      }
    }));
    return new ExperimentPlugins(changed, schedulers, locks, devices, workloads);
  }

  public ImmutableSortedMap<String, ArchProfileFactory> arches() {
    return arches;
  }

  public ImmutableSortedMap<String, SchedulerFactory> schedulers() {
    return schedulers;
  }

  public ImmutableSortedMap<String, LockFactory> locks() {
    return locks;
  }

  public ImmutableSortedMap<String, DeviceFactory> devices() {
    return devices;
  }

  public ImmutableSortedMap<String, WorkloadFactory> workloads() {
    return workloads;
  }

  /** Lock plugins of one kind, by name. */
  public List<String> locksOfKind(LockFactory.LockKind kind) {
    List<String> names = new ArrayList<>();
    locks.forEach((name, f) -> {
      if (f.lockKind() == kind) {
        names.add(name);
      }
    });
    return names;
  }

  /**
   * Checks option values against a plugin's declared options, one problem per bad key or value
   * (unknown key with "did you mean", wrong type, out of range, not an allowed value), through the
   * framework's one binder ({@link OptionBinder}).
   */
  public static List<Problem> checkOptions(String path, Plugin plugin, Map<String, String> given) {
    List<Problem> problems = new ArrayList<>();
    OptionBinder.problems(plugin.kind() + " " + plugin.name(), plugin.options(), given)
        .forEach((key, problem) -> problems.add(new Problem(path + "." + key, problem)));
    return problems;
  }

  /** The values as the plugin binds them: durations with units become whole nanoseconds. */
  public static Map<String, String> normalizeOptions(Plugin plugin, Map<String, String> given) {
    return OptionBinder.normalize(plugin.options(), given);
  }

  /**
   * The costs of arch profile {@code arch} as plugins read them; when there is no such profile
   * (reported elsewhere) a view that refuses every read.
   */
  public ArchCosts costs(String arch) {
    ArchProfileFactory f = arches.get(arch);
    return f != null ? ArchCosts.of(f.create()) : ArchCosts.unavailable("no arch profile [" + arch + "]");
  }

  /**
   * A device made from its options alone, before any machine exists (validation, estimates): the
   * framework binds the options ({@link OptionBinder#bind}) and the factory creates; the context
   * has no VM and no locks.
   *
   * @throws IllegalArgumentException the options' or the factory's own refusal, one line
   */
  public static Device detached(DeviceFactory f, String name, Map<String, String> given, ArchCosts costs) {
    return f.create(DeviceContext.of(name, OptionBinder.bind(f, normalizeOptions(f, given)), costs,
        KernelLocks.NONE, null));
  }

  /** A workload made from its options alone, before any machine exists (see {@link #detached(DeviceFactory, String, Map, ArchCosts)}). */
  public static Workload detached(WorkloadFactory f, String name, Map<String, String> given, ArchCosts costs) {
    return f.create(WorkloadContext.of(name, OptionBinder.bind(f, normalizeOptions(f, given)), costs,
        KernelLocks.NONE, null, Map.of()));
  }

  /** A scheduler made from its options alone, for kernel {@code kernel} (see {@link #detached(DeviceFactory, String, Map, ArchCosts)}). */
  public static Scheduler detached(SchedulerFactory f, String kernel, Map<String, String> given, ArchCosts costs) {
    return f.create(SchedulerContext.of(kernel, OptionBinder.bind(f, normalizeOptions(f, given)), costs));
  }
}

package org.lockvisor.experiment.model;

import com.google.common.collect.ImmutableSortedMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.lockvisor.arch.spi.ArchProfile;
import org.lockvisor.arch.spi.ArchProfileFactory;
import org.lockvisor.core.plugin.DidYouMean;
import org.lockvisor.core.plugin.Plugin;
import org.lockvisor.core.plugin.PluginOption;
import org.lockvisor.devices.spi.DeviceFactory;
import org.lockvisor.locking.spi.LockFactory;
import org.lockvisor.scheduler.spi.SchedulerFactory;
import org.lockvisor.workloads.spi.WorkloadFactory;

/**
 * The plugins an experiment can name, by kind, sorted by name. The composition root builds it
 * from the multibound maps; tests and embedders may build it by hand.
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
    this.devices = ImmutableSortedMap.copyOf(devices);
    this.workloads = ImmutableSortedMap.copyOf(workloads);
  }

  /** Every plugin on {@code loader}'s class path, found with ServiceLoader (no injector). */
  public static ExperimentPlugins discover(ClassLoader loader) {
    return new ExperimentPlugins(load(ArchProfileFactory.class, loader), load(SchedulerFactory.class, loader),
        load(LockFactory.class, loader), load(DeviceFactory.class, loader), load(WorkloadFactory.class, loader));
  }

  private static <T extends Plugin> Map<String, T> load(Class<T> spi, ClassLoader loader) {
    Map<String, T> byName = new TreeMap<>();
    java.util.ServiceLoader.load(spi, loader).forEach(p -> byName.putIfAbsent(p.name(), p));
    return byName;
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
      public ArchProfile create() {
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
   * (unknown key with "did you mean", wrong type, out of range, not an allowed value).
   */
  public static List<Problem> checkOptions(String path, Plugin plugin, Map<String, String> given) {
    Map<String, PluginOption> declared = new TreeMap<>();
    plugin.options().forEach(o -> declared.put(o.name(), o));
    List<Problem> problems = new ArrayList<>();
    for (Map.Entry<String, String> e : new TreeMap<>(given).entrySet()) {
      String at = path + "." + e.getKey();
      PluginOption o = declared.get(e.getKey());
      if (o == null) {
        problems.add(new Problem(at, DidYouMean.unknownMessage(plugin.kind() + " " + plugin.name() + " option",
            e.getKey(), declared.keySet())));
        continue;
      }
      String problem = checkValue(o, e.getValue());
      if (problem != null) {
        problems.add(new Problem(at, problem));
      }
    }
    return problems;
  }

  private static String checkValue(PluginOption o, String raw) {
    String v = raw == null ? "" : raw.trim();
    switch (o.type()) {
      case BOOLEAN, ENUM -> {
        if (!o.allowed().contains(v)) {
          List<String> close = DidYouMean.suggestions(v, o.allowed());
          return "[" + v + "] is not one of " + o.allowed() + (close.isEmpty() ? "" : "; did you mean " + close + "?");
        }
      }
      case INTEGER -> {
        long n;
        try {
          n = Long.parseLong(v);
        } catch (NumberFormatException e) {
          return "[" + v + "] is not a whole number; allowed: [" + (long) o.min() + ", " + (long) o.max() + "]";
        }
        if (n < o.min() || n > o.max()) {
          return "[" + v + "] is out of range; allowed: [" + (long) o.min() + ", " + (long) o.max() + "]";
        }
      }
      case DURATION_NS -> {
        long n = Durations.parse(v);
        if (n < 0) {
          return "[" + v + "] is not a duration (ns, or a number with ns/us/ms/s); allowed: ["
              + Durations.format((long) o.min()) + ", " + Durations.format((long) o.max()) + "]";
        }
        if (n < o.min() || n > o.max()) {
          return "[" + v + "] is out of range; allowed: [" + Durations.format((long) o.min()) + ", "
              + Durations.format((long) o.max()) + "]";
        }
      }
      case DOUBLE -> {
        double d;
        try {
          d = Double.parseDouble(v);
        } catch (NumberFormatException e) {
          return "[" + v + "] is not a number; allowed: [" + o.min() + ", " + o.max() + "]";
        }
        if (!(d >= o.min() && d <= o.max())) {
          return "[" + v + "] is out of range; allowed: [" + o.min() + ", " + o.max() + "]";
        }
      }
      case STRING -> { }
    }
    return null;
  }

  /** The values as the plugin parses them: durations with units become whole nanoseconds. */
  public static Map<String, String> normalizeOptions(Plugin plugin, Map<String, String> given) {
    Map<String, String> out = new TreeMap<>();
    given.forEach((k, v) -> {
      String value = v == null ? "" : v.trim();
      for (PluginOption o : plugin.options()) {
        if (o.name().equals(k) && o.type() == PluginOption.Type.DURATION_NS && Durations.parse(value) >= 0) {
          value = Long.toString(Durations.parse(value));
        }
      }
      out.put(k, value);
    });
    return out;
  }
}

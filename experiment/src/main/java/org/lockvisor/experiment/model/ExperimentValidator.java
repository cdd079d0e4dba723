package org.lockvisor.experiment.model;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.lockvisor.arch.spi.ArchCosts;
import org.lockvisor.arch.spi.ArchProfile;
import org.lockvisor.arch.spi.ArchProfileFactory;
import org.lockvisor.arch.spi.HypervisorBehaviour.VcpuPreemptedSemantics;
import org.lockvisor.core.plugin.DidYouMean;
import org.lockvisor.core.plugin.Plugin;
import org.lockvisor.devices.spi.DeviceFactory;
import org.lockvisor.locking.spi.LockFactory;
import org.lockvisor.locking.spi.LockFactory.LockKind;
import org.lockvisor.scheduler.spi.SchedulerFactory;
import org.lockvisor.workloads.spi.WorkloadFactory;

/**
 * The one validation both front doors go through. {@link #structure} checks what needs no
 * plugin (ranges, names, pinning against the host, contradictions); {@link #validate} adds the
 * plugins: unknown names with "did you mean", lock algorithms of the wrong kind, options against
 * each plugin's declarations and the plugin's own cross-option checks, and every variant.
 */
public final class ExperimentValidator {

  /** Upper bounds that catch typos (a machine model, not a data centre). */
  public static final int MAX_HOST_CPUS = 4096;
  public static final int MAX_VCPUS = 1024;
  public static final int MAX_VMS = 256;
  public static final int MAX_HOST_THREADS = 65_536;
  /** Physical CPUs plus every VM's vCPUs: checked before anything is allocated. */
  public static final int MAX_TOTAL_CPUS = 16_384;
  /** One simulated hour: longer runs are almost certainly a unit mistake. */
  public static final long MAX_SIMULATED_NS = 3_600_000_000_000L;

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

  private final ExperimentPlugins plugins;

  public ExperimentValidator(ExperimentPlugins plugins) {
    this.plugins = plugins;
  }

  /** Throws {@link InvalidExperimentException} with every problem, if any. */
  public void check(String source, Experiment e) {
    List<Problem> problems = validate(e);
    if (!problems.isEmpty()) {
      throw new InvalidExperimentException(source, problems);
    }
  }

  /**
   * The experiment a YAML tree describes, after every check: keys and types, structure, plugins,
   * variants. When keys or types are wrong, the plugin names are still checked so that one run
   * reports everything that can be known.
   *
   * @throws InvalidExperimentException listing every problem
   */
  public Experiment validateTree(String source, com.fasterxml.jackson.databind.JsonNode tree) {
    ExperimentYaml.Bound bound = ExperimentYaml.bindLenient(tree);
    if (!bound.problems().isEmpty()) {
      List<Problem> problems = new ArrayList<>(bound.problems());
      problems.addAll(pluginProblems(bound.experiment()));
      throw new InvalidExperimentException(source, problems);
    }
    check(source, bound.experiment());
    return bound.experiment();
  }

  /** Every problem of {@code e}, its plugins and its variants. */
  public List<Problem> validate(Experiment e) {
    List<Problem> problems = new ArrayList<>(structure(e));
    problems.addAll(pluginProblems(e));
    if (!problems.isEmpty()) {
      return problems;
    }
    for (String variant : e.variants().keySet()) {
      try {
        Experiment v = ExperimentYaml.variant(e, variant);
        problems.addAll(ExperimentVariants.prefixed("variants." + variant, pluginProblems(v)));
      } catch (InvalidExperimentException ex) {
        problems.addAll(ex.problems());
      }
    }
    List<Map<String, String>> points = SweepPoints.of(e);
    for (int i = 0; i < points.size() && !e.sweep().isEmpty(); i++) {
      String label = pointLabel(i, points.get(i));
      try {
        Experiment p = ExperimentYaml.point(e, points.get(i), label);
        problems.addAll(ExperimentVariants.prefixed(label, validate(p))); // its variants too
      } catch (InvalidExperimentException ex) {
        problems.addAll(ex.problems());
      }
      if (problems.size() > 50) {
        break; // one broken parameter breaks every point: the first ones say it all
      }
    }
    return problems;
  }

  /** How problems name a sweep point: {@code sweep[3]{vms[0].vcpus=8}}. */
  public static String pointLabel(int index, Map<String, String> overrides) {
    return "sweep[" + index + "]" + overrides.toString().replace(", ", ",");
  }

  /** The host CPUs {@code e} runs on: its own count, or the arch profile's default topology. */
  public int hostCpus(Experiment e) {
    if (e.host().cpus() > 0) {
      return e.host().cpus();
    }
    ArchProfileFactory f = plugins.arches().get(e.arch());
    return f == null ? 0 : f.create().topology().cpus();
  }

  private List<Problem> pluginProblems(Experiment e) {
    List<Problem> problems = new ArrayList<>();
    ArchProfileFactory arch = plugins.arches().get(e.arch());
    if (arch == null) {
      problems.add(new Problem("arch", DidYouMean.unknownMessage("arch profile", e.arch(), plugins.arches().keySet())));
    } else {
      if (e.host().locks().vcpuIsPreempted()) {
        problems.add(new Problem("host.locks.vcpu-is-preempted", "[true] cannot take effect: the host kernel runs"
            + " on bare metal, where vcpu_is_preempted is always false; allowed: [false]"));
      }
      List<Problem> hypervisor = HypervisorSettings.check(e.hypervisor(), arch);
      problems.addAll(hypervisor);
      ArchProfile profile = hypervisor.isEmpty() ? HypervisorSettings.apply(arch, arch.create(), e.hypervisor())
          : arch.create();
      if (profile.hypervisor().vcpuPreempted() == VcpuPreemptedSemantics.NONE) {
        // A kernel whose spin loops consult vcpu_is_preempted gets "false" from every call: the switch
        // would change nothing, so it is refused rather than accepted as a no-op.
        List<String> semantics = arch.vcpuPreemptedSemantics().stream()
            .filter(s -> s != VcpuPreemptedSemantics.NONE).sorted().map(HypervisorSettings::kebab).toList();
        List<String> eras = arch.kernelEras().stream()
            .filter(era -> era.vcpuPreempted() != VcpuPreemptedSemantics.NONE).map(era -> era.name()).sorted().toList();
        String alternative = !eras.isEmpty() ? ", or choose hypervisor.kernel-era: " + eras
            : semantics.isEmpty() ? "" : ", or choose hypervisor.vcpu-is-preempted: " + semantics;
        for (int i = 0; i < e.vms().size(); i++) {
          if (e.vms().get(i).locks().vcpuIsPreempted()) {
            problems.add(new Problem("vms[" + i + "].locks.vcpu-is-preempted", "[true] cannot take effect: on ["
                + e.arch() + "]" + (e.hypervisor().containsKey("kernel-era") ? " with kernel-era ["
                + e.hypervisor().get("kernel-era").strip() + "]" : "")
                + " vcpu_is_preempted answers [none] (always false); allowed: [false]" + alternative));
          }
        }
      }
      if (e.host().cpus() == 0) {
        int cpus = profile.topology().cpus();
        pinningAgainst(e, cpus, "the default topology of [" + e.arch() + "] has", problems);
      }
      for (int i = 0; i < e.vms().size(); i++) {
        if (Boolean.TRUE.equals(e.vms().get(i).kernel().stealTimeAccounting()) && !profile.hypervisor().stealTime()) {
          problems.add(new Problem("vms[" + i + "].kernel.steal-time-accounting", "[true] but the hypervisor of ["
              + e.arch() + "] gives its guests no steal time; allowed: [false], or leave it out"));
        }
        int threads = e.vms().get(i).kernel().threadsPerCore();
        if (threads > 1 && profile.hypervisor().hostHz() != 0) {
          // Platforms.guestTopology: a KVM guest is one socket of single-threaded cores (QEMU -smp N)
          problems.add(new Problem("vms[" + i + "].kernel.threads-per-core", "[" + threads + "] cannot take effect"
              + " on [" + e.arch() + "]: its guests see one thread per core; allowed: [1]"));
        }
      }
    }
    ArchCosts costs = plugins.costs(e.arch());
    plugin(problems, "host.scheduler", "scheduler", e.host().scheduler(), plugins.schedulers(), "host", costs);
    lockChoices(problems, "host.locks", e.host().locks());
    for (int i = 0; i < e.vms().size(); i++) {
      VmSpec vm = e.vms().get(i);
      String p = "vms[" + i + "]";
      plugin(problems, p + ".scheduler", "scheduler", vm.scheduler(), plugins.schedulers(), vm.name(), costs);
      lockChoices(problems, p + ".locks", vm.locks());
      components(problems, p + ".devices", "device", vm.devices(), plugins.devices(), costs);
      components(problems, p + ".workloads", "workload", vm.workloads(), plugins.workloads(), costs);
    }
    workloadsFinish(problems, e);
    return problems;
  }

  private static void plugin(List<Problem> problems, String path, String kind, Choice c,
      Map<String, ? extends SchedulerFactory> known, String kernel, ArchCosts costs) {
    SchedulerFactory f = known.get(c.name());
    if (f == null) {
      problems.add(new Problem(path, DidYouMean.unknownMessage(kind, c.name(), known.keySet())));
      return;
    }
    String optionsPath = path.replace(".scheduler", ".scheduler-options");
    List<Problem> optionProblems = ExperimentPlugins.checkOptions(optionsPath, f, c.options());
    problems.addAll(optionProblems);
    if (optionProblems.isEmpty()) {
      try {
        ExperimentPlugins.detached(f, kernel, c.options(), costs);
      } catch (IllegalArgumentException ex) {
        problems.add(new Problem(optionsPath, oneLine(ex.getMessage())));
      }
    }
  }

  private void lockChoices(List<Problem> problems, String path, LockChoices locks) {
    for (LockKind kind : List.of(LockKind.SPINLOCK, LockKind.MUTEX, LockKind.RWSEM, LockKind.RWLOCK)) {
      if (kind == LockKind.RWLOCK && locks.rwlock() == null) {
        continue; // the architecture's rwlock (LockChoices.rwlockFor), resolved where the kernel is made
      }
      String p = path + "." + kind.name().toLowerCase(java.util.Locale.ROOT);
      lock(problems, p, locks.algorithm(kind), kind);
      LockFactory f = plugins.locks().get(locks.algorithm(kind));
      if (f != null && f.lockKind() == kind) {
        // the keys plugins --options prints, bound by the one binder (unknown keys, types, ranges)
        problems.addAll(ExperimentPlugins.checkOptions(p + ".options", f, locks.options(kind)));
      }
    }
  }

  private void lock(List<Problem> problems, String path, String name, LockKind kind) {
    List<String> ofKind = plugins.locksOfKind(kind);
    LockFactory f = plugins.locks().get(name);
    if (f == null) {
      problems.add(new Problem(path, DidYouMean.unknownMessage(kind.name().toLowerCase(java.util.Locale.ROOT)
          + " algorithm", name, ofKind)));
    } else if (f.lockKind() != kind) {
      problems.add(new Problem(path, "[" + name + "] is a " + f.lockKind().name().toLowerCase(java.util.Locale.ROOT)
          + " algorithm, not a " + kind.name().toLowerCase(java.util.Locale.ROOT) + " one; allowed: " + ofKind));
    }
  }

  private static <F extends Plugin> void components(List<Problem> problems, String path, String kind,
      List<ComponentSpec> components, Map<String, F> known, ArchCosts costs) {
    for (int i = 0; i < components.size(); i++) {
      ComponentSpec c = components.get(i);
      String p = path + "[" + i + "]";
      if (c.type().isEmpty()) {
        continue; // reported by the binder or by structure()
      }
      F f = known.get(c.type());
      if (f == null) {
        problems.add(new Problem(p + ".type", DidYouMean.unknownMessage(kind, c.type(), known.keySet())));
        continue;
      }
      List<Problem> optionProblems = ExperimentPlugins.checkOptions(p + ".options", f, c.options());
      problems.addAll(optionProblems);
      if (optionProblems.isEmpty()) {
        // The plugin's own cross-option checks (e.g. iodepth-batch <= iodepth).
        try {
          Map<String, String> normalized = ExperimentPlugins.normalizeOptions(f, c.options());
          if (f instanceof DeviceFactory d) {
            ExperimentPlugins.detached(d, c.name(), normalized, costs);
          } else if (f instanceof WorkloadFactory w) {
            ExperimentPlugins.detached(w, c.name(), normalized, costs);
          }
        } catch (IllegalArgumentException ex) {
          problems.add(new Problem(p + ".options", oneLine(ex.getMessage())));
        }
      }
    }
  }

  static String oneLine(String message) {
    return message == null ? "invalid" : message.strip().replaceAll("\\s*\\R\\s*", "; ");
  }

  // -------------------------------------------------------------------------------------------
  // Structure.

  /** Problems found without plugins: ranges, names, pinning and other contradictions. */
  public static List<Problem> structure(Experiment e) {
    List<Problem> problems = new ArrayList<>();
    if (!e.name().isEmpty() && !NAME.matcher(e.name()).matches()) {
      problems.add(new Problem("name", "[" + e.name() + "] is not a name: use letters, digits, '.', '_' or '-',"
          + " at most 64, starting with a letter or digit"));
    }
    if (e.warmupNs() < 0) {
      problems.add(new Problem("warmup", "[" + e.warmupNs() + "] must not be negative"));
    }
    if (!e.untilDone() && e.durationNs() <= 0) {
      problems.add(new Problem("duration", "[" + e.durationNs() + "] must be positive, e.g. [100ms]"));
    }
    if (!e.untilDone() && e.warmupNs() >= 0 && e.durationNs() > 0
        && e.warmupNs() + e.durationNs() > MAX_SIMULATED_NS) {
      problems.add(new Problem("duration", "warm-up plus duration is [" + Durations.format(e.warmupNs()
          + e.durationNs()) + "] of simulated time; at most [" + Durations.format(MAX_SIMULATED_NS) + "]"));
    }
    untilDone(problems, e);
    kernel(problems, "host.kernel", e.host().kernel());
    if (e.host().kernel().reschedIpi()) {
      problems.add(new Problem("host.kernel.resched-ipi", "is a guest kernel setting (the accept path is the"
          + " platform's interrupt controller as a guest sees it); set it under vms[i].kernel"));
    }
    if (e.host().kernel().hz() != null) {
      problems.add(new Problem("host.kernel.hz", "is a guest kernel setting (the host's tick is the arch profile's"
          + " hostHz, or the dispatch window of a partition hypervisor); set it under vms[i].kernel"));
    }
    if (e.host().kernel().stealTimeAccounting() != null) {
      problems.add(new Problem("host.kernel.steal-time-accounting", "is a guest kernel setting (the host has no"
          + " steal time); set it under vms[i].kernel"));
    }
    for (int i = 0; i < e.vms().size(); i++) {
      if (e.vms().get(i).kernel().irqTimeAccounting()) {
        problems.add(new Problem("vms[" + i + "].kernel.irq-time-accounting", "is a host kernel setting (only host"
            + " threads' CPU figures read it); set it under host.kernel"));
      }
    }
    int cpus = e.host().cpus();
    if (cpus < 0 || cpus > MAX_HOST_CPUS) {
      problems.add(new Problem("host.cpus", "[" + cpus + "] is out of range; allowed: [1, " + MAX_HOST_CPUS
          + "], or 0 for the arch profile's topology"));
    }
    if (e.vms().isEmpty()) {
      problems.add(new Problem("vms", "no VMs; an experiment needs at least one VM"));
    }
    if (e.vms().size() + e.background().vms().size() > MAX_VMS) {
      problems.add(new Problem("vms", "[" + (e.vms().size() + e.background().vms().size())
          + "] VMs in all; at most [" + MAX_VMS + "]"));
    }
    Set<String> vmNames = new HashSet<>();
    for (int i = 0; i < e.vms().size(); i++) {
      VmSpec vm = e.vms().get(i);
      String p = "vms[" + i + "]";
      name(problems, p + ".name", vm.name(), vmNames, "VM");
      vcpus(problems, p, vm.vcpus(), vm.pinning());
      kernel(problems, p + ".kernel", vm.kernel());
      int threads = vm.kernel().threadsPerCore();
      if (threads > 1 && vm.vcpus() % threads != 0) {
        problems.add(new Problem(p + ".kernel.threads-per-core", "[" + threads + "] does not divide the VM's ["
            + vm.vcpus() + "] vCPUs; a core's threads are consecutive vCPUs"));
      }
      Set<String> deviceNames = new HashSet<>();
      for (int d = 0; d < vm.devices().size(); d++) {
        component(problems, p + ".devices[" + d + "]", vm.devices().get(d), deviceNames, "device");
      }
      Set<String> workloadNames = new HashSet<>();
      for (int w = 0; w < vm.workloads().size(); w++) {
        component(problems, p + ".workloads[" + w + "]", vm.workloads().get(w), workloadNames, "workload");
      }
    }
    // Only values within their own ranges count (the others are reported already).
    long totalCpus = cpus >= 0 && cpus <= MAX_HOST_CPUS ? cpus : 0;
    for (VmSpec vm : e.vms()) {
      totalCpus += vm.vcpus() >= 1 && vm.vcpus() <= MAX_VCPUS ? vm.vcpus() : 0;
    }
    for (BackgroundSpec.BackgroundVm vm : e.background().vms()) {
      totalCpus += vm.vcpus() >= 1 && vm.vcpus() <= MAX_VCPUS ? vm.vcpus() : 0;
    }
    if (totalCpus > MAX_TOTAL_CPUS) {
      problems.add(new Problem("vms", "the host's CPUs and the VMs' vCPUs add up to [" + totalCpus
          + "] simulated CPUs; at most [" + MAX_TOTAL_CPUS + "]"));
    }
    int hostThreads = e.background().hostThreads();
    if (hostThreads < 0 || hostThreads > MAX_HOST_THREADS) {
      problems.add(new Problem("background.host-threads", "[" + hostThreads + "] is out of range; allowed: [0, "
          + MAX_HOST_THREADS + "]"));
    }
    for (int i = 0; i < e.background().vms().size(); i++) {
      BackgroundSpec.BackgroundVm vm = e.background().vms().get(i);
      String p = "background.vms[" + i + "]";
      name(problems, p + ".name", vm.name(), vmNames, "VM");
      vcpus(problems, p, vm.vcpus(), vm.pinning());
    }
    if (cpus > 0) {
      pinningAgainst(e, cpus, "host.cpus is", problems);
    }
    if (e.replications() < 1 || e.replications() > 1000) {
      problems.add(new Problem("replications", "[" + e.replications() + "] is out of range; allowed: [1, 1000]"));
    }
    for (Map.Entry<String, List<String>> s : e.sweep().entrySet()) {
      if (s.getValue().isEmpty()) {
        problems.add(new Problem("sweep." + s.getKey(), "has no values; list at least one"));
      }
    }
    if (SweepPoints.count(e) > SweepPoints.MAX_POINTS) {
      problems.add(new Problem("sweep", "the cartesian product has more than " + SweepPoints.MAX_POINTS + " points"));
    }
    for (Map.Entry<String, Map<String, String>> v : e.variants().entrySet()) {
      if (!NAME.matcher(v.getKey()).matches() || v.getKey().equals("base")) {
        problems.add(new Problem("variants." + v.getKey(), "[" + v.getKey() + "] is not a variant name: use letters,"
            + " digits, '.', '_' or '-' (and not [base], the name of the unmodified experiment)"));
      }
      if (v.getValue().isEmpty()) {
        problems.add(new Problem("variants." + v.getKey(), "has no overrides; write [path: value] pairs,"
            + " e.g. [vms[0].locks.spinlock: ticket]"));
      }
    }
    return problems;
  }

  /** The cap and the check interval of {@code duration: until-done}, and that something can finish. */
  private static void untilDone(List<Problem> problems, Experiment e) {
    if (e.maxDurationNs() <= 0) {
      problems.add(new Problem("max-duration", "[" + e.maxDurationNs() + "] must be positive, e.g. [10s]"));
    } else if (e.untilDone() && e.warmupNs() >= 0 && e.warmupNs() + e.maxDurationNs() > MAX_SIMULATED_NS) {
      problems.add(new Problem("max-duration", "warm-up plus max-duration is [" + Durations.format(e.warmupNs()
          + e.maxDurationNs()) + "] of simulated time; at most [" + Durations.format(MAX_SIMULATED_NS) + "]"));
    }
    if (e.doneCheckIntervalNs() <= 0) {
      problems.add(new Problem("done-check-interval", "[" + e.doneCheckIntervalNs()
          + "] must be positive, e.g. [1ms]"));
    } else if (e.maxDurationNs() > 0 && e.doneCheckIntervalNs() > e.maxDurationNs()) {
      problems.add(new Problem("done-check-interval", "[" + Durations.format(e.doneCheckIntervalNs())
          + "] is longer than max-duration [" + Durations.format(e.maxDurationNs()) + "]; allowed: (0, "
          + Durations.format(e.maxDurationNs()) + "]"));
    }
    if (e.sampleIntervalNs() < 0) {
      problems.add(new Problem("sample-interval", "[" + e.sampleIntervalNs()
          + "] must be 0 (no sampling) or positive, e.g. [100us]"));
    }
    if (e.untilDone() && !e.vms().isEmpty() && e.vms().stream().allMatch(vm -> vm.workloads().isEmpty())) {
      problems.add(new Problem("duration", "[" + Experiment.UNTIL_DONE + "] waits for the workloads to finish, but"
          + " no VM has a workload; give a fixed duration such as [100ms]"));
    }
  }

  /** Under {@code duration: until-done}, every workload must be one that ends on its own. */
  private void workloadsFinish(List<Problem> problems, Experiment e) {
    if (!e.untilDone()) {
      return;
    }
    List<String> finishing = plugins.workloads().values().stream()
        .filter(f -> f.capabilities().contains(WorkloadFactory.FINISHES))
        .map(WorkloadFactory::name).sorted().toList();
    for (int i = 0; i < e.vms().size(); i++) {
      List<ComponentSpec> workloads = e.vms().get(i).workloads();
      for (int w = 0; w < workloads.size(); w++) {
        ComponentSpec c = workloads.get(w);
        WorkloadFactory f = plugins.workloads().get(c.type());
        if (f == null) {
          continue; // reported as an unknown workload
        }
        boolean finishes;
        try {
          finishes = ExperimentPlugins.detached(f, c.name(), c.options(), plugins.costs(e.arch())).finishes();
        } catch (IllegalArgumentException ex) {
          continue; // reported at its options
        }
        String p = "vms[" + i + "].workloads[" + w + "]";
        if (finishes) {
          continue;
        }
        if (f.capabilities().contains(WorkloadFactory.FINISHES)) {
          problems.add(new Problem(p + ".options", "[" + c.type() + "] as configured does not end on its own, so"
              + " [duration: " + Experiment.UNTIL_DONE + "] would not end; see [lockvisor plugins --options " + c.type()
              + "] for the options that bound its work, or give a fixed duration such as [100ms]"));
        } else {
          problems.add(new Problem(p + ".type", "[" + c.type() + "] runs until the experiment stops it, so [duration: "
              + Experiment.UNTIL_DONE + "] would not end; workloads that end on their own: " + finishing
              + "; or give a fixed duration such as [100ms]"));
        }
      }
    }
  }

  private static void kernel(List<Problem> problems, String path, KernelSpec kernel) {
    if (!KernelSpec.TTWU_QUEUE_MODES.contains(kernel.ttwuQueue())) {
      problems.add(new Problem(path + ".ttwu-queue", DidYouMean.unknownMessage("ttwu-queue mode", kernel.ttwuQueue(),
          KernelSpec.TTWU_QUEUE_MODES)));
    }
    if (!KernelSpec.THREADS_PER_CORE.contains(kernel.threadsPerCore())) {
      problems.add(new Problem(path + ".threads-per-core", "[" + kernel.threadsPerCore() + "] is not a POWER8/x86 SMT"
          + " mode; allowed: " + KernelSpec.THREADS_PER_CORE));
    }
    if (kernel.hz() != null && !KernelSpec.HZ_VALUES.contains(kernel.hz())) {
      problems.add(new Problem(path + ".hz", "[" + kernel.hz() + "] is not a CONFIG_HZ choice of the era's"
          + " kernel/Kconfig.hz; allowed: " + KernelSpec.HZ_VALUES));
    }
  }

  private static void name(List<Problem> problems, String path, String name, Set<String> seen, String what) {
    if (!NAME.matcher(name).matches()) {
      problems.add(new Problem(path, "[" + name + "] is not a " + what + " name: use letters, digits, '.', '_' or '-'"));
    } else if (!seen.add(name)) {
      problems.add(new Problem(path, "[" + name + "] is used twice; " + what + " names must be unique"));
    }
  }

  private static void vcpus(List<Problem> problems, String path, int vcpus, List<Integer> pinning) {
    if (vcpus < 1 || vcpus > MAX_VCPUS) {
      problems.add(new Problem(path + ".vcpus", "[" + vcpus + "] is out of range; allowed: [1, " + MAX_VCPUS + "]"));
      return;
    }
    if (!pinning.isEmpty() && pinning.size() != vcpus) {
      problems.add(new Problem(path + ".pinning", "lists " + pinning.size() + " CPUs for " + vcpus
          + " vCPUs; give one physical CPU per vCPU, or none"));
    }
    for (int i = 0; i < pinning.size(); i++) {
      if (pinning.get(i) < 0) {
        problems.add(new Problem(path + ".pinning[" + i + "]", "[" + pinning.get(i) + "] is not a CPU number"));
      }
    }
  }

  private static void component(List<Problem> problems, String path, ComponentSpec c, Set<String> seen,
      String what) {
    if (c.type().isEmpty()) {
      problems.add(new Problem(path + ".type", "missing; name the " + what + " plugin"));
    }
    name(problems, path + ".name", c.name(), seen, what);
  }

  /** Pinning to CPUs the host does not have; exclusive pinning that cannot hold. */
  private static void pinningAgainst(Experiment e, int cpus, String hostSays, List<Problem> problems) {
    Map<Integer, String> owner = new HashMap<>();
    int pinnedThreads = 0;
    List<String> paths = new ArrayList<>();
    List<List<Integer>> pinnings = new ArrayList<>();
    List<Integer> counts = new ArrayList<>();
    for (int i = 0; i < e.vms().size(); i++) {
      paths.add("vms[" + i + "]");
      pinnings.add(e.vms().get(i).pinning());
      counts.add(e.vms().get(i).vcpus());
    }
    for (int i = 0; i < e.background().vms().size(); i++) {
      paths.add("background.vms[" + i + "]");
      pinnings.add(e.background().vms().get(i).pinning());
      counts.add(e.background().vms().get(i).vcpus());
    }
    for (int v = 0; v < paths.size(); v++) {
      List<Integer> pinning = pinnings.get(v);
      for (int i = 0; i < pinning.size(); i++) {
        int cpu = pinning.get(i);
        String p = paths.get(v) + ".pinning[" + i + "]";
        if (cpu >= cpus) {
          problems.add(new Problem(p, "CPU [" + cpu + "] does not exist; " + hostSays + " " + cpus
              + " CPUs, numbered [0-" + (cpus - 1) + "]"));
        } else if (cpu >= 0 && e.host().exclusivePinning()) {
          String previous = owner.putIfAbsent(cpu, p);
          if (previous != null) {
            problems.add(new Problem(p, "CPU [" + cpu + "] is also pinned by " + previous
                + "; host.exclusive-pinning allows one vCPU per CPU"));
          }
        }
      }
      if (e.host().exclusivePinning() && pinning.isEmpty() && counts.get(v) > 0) {
        problems.add(new Problem(paths.get(v) + ".pinning", "missing; host.exclusive-pinning needs every vCPU pinned"));
      }
      pinnedThreads += pinning.isEmpty() ? counts.get(v) : pinning.size();
    }
    if (e.host().exclusivePinning() && pinnedThreads > cpus) {
      problems.add(new Problem("host.exclusive-pinning", "[" + pinnedThreads + "] vCPUs cannot each have one of "
          + cpus + " CPUs"));
    }
  }
}

package org.lockvisor.experiment.model;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSortedMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.lockvisor.arch.spi.ArchProfile;
import org.lockvisor.arch.spi.ArchProfileFactory;
import org.lockvisor.arch.spi.Cost;
import org.lockvisor.arch.spi.CostKey;
import org.lockvisor.arch.spi.HypervisorBehaviour.SpinTrap;
import org.lockvisor.arch.spi.HypervisorBehaviour.VcpuPreemptedSemantics;
import org.lockvisor.arch.spi.HypervisorBehaviour;
import org.lockvisor.arch.spi.KernelEra;
import org.lockvisor.core.plugin.DidYouMean;
import org.lockvisor.machine.config.DirectedYield;
import org.lockvisor.machine.config.HostActivity;
import org.lockvisor.machine.config.HypervisorConfig;
import org.lockvisor.platform.Platforms;

/**
 * The experiment's {@code hypervisor:} section: what the host's hypervisor does, chosen per
 * experiment instead of per arch profile. Every key starts from the profile's value (its
 * default), and a value the profile cannot honour is refused with the values it allows, never
 * silently dropped: pause-loop exiting cannot be switched on where the architecture has no spin
 * trap (PowerVM, s390), {@code ple-grow} is x86's {@code ple_window_grow} (WFE trapping has no
 * window), halt polling is KVM's (a partition hypervisor has none), and {@code vcpu-is-preempted}
 * takes only the semantics the profile lists ({@link ArchProfileFactory#vcpuPreemptedSemantics}).
 *
 * <p>Each knob is one {@link Knob} declaration in {@link #KNOBS}: its key, its type and
 * documentation, the values a profile allows, and how it changes the profile (the behaviour
 * record or a cost) or, for what the profile does not hold, the machine's {@link
 * HypervisorConfig} that {@code Platforms.hypervisor} builds from it: the era's {@code
 * kvm_vcpu_on_spin} variant ({@link DirectedYield}: 3.2, 3.8, 3.10; virt/kvm/kvm_main.c), vmx's
 * {@code ple_window_shrink} (3.18+) and the host's background activity ({@link HostActivity}:
 * tick placement, softirq and kworker rates and times). The run builds its machine from the
 * changed profile and applies {@link #adjust}, so the settings reach the machine through the same
 * path as the profile's own values (Platforms).
 */
public final class HypervisorSettings {

  /** How a knob's value is written. */
  public enum Type { BOOLEAN, INTEGER, DURATION, ENUM }

  /**
   * One hypervisor setting.
   *
   * @param key the YAML key under {@code hypervisor:}
   * @param type how its value is written
   * @param max the largest value of a number (durations in ns); numbers start at {@code min}
   * @param doc what it sets, with the kernel's name for it
   * @param current the profile's value: the default
   * @param allowed the values a profile accepts (for numbers, a one-element list describing the
   *     range), or an empty list when the profile cannot honour the knob at all
   * @param apply {@code profile} with the (checked) value applied
   * @param machine the machine's hypervisor configuration with the value applied, for what the
   *     arch profile does not hold (the directed-yield variant, PLE shrink, host background)
   * @param values for an {@link Type#ENUM}: every value the key knows on any profile
   */
  public record Knob(String key, Type type, long min, long max, String doc,
      java.util.function.BiFunction<ArchProfileFactory, ArchProfile, String> current, Allowed allowed, Apply apply, MachineApply machine,
      List<String> values) {

    /** A knob that changes only the arch profile. */
    Knob(String key, Type type, long min, long max, String doc,
        java.util.function.BiFunction<ArchProfileFactory, ArchProfile, String> current, Allowed allowed, Apply apply) {
      this(key, type, min, max, doc, current, allowed, apply, (hv, v) -> hv, List.of());
    }

    /** A knob that changes only the machine's hypervisor configuration. */
    static Knob machine(String key, Type type, long min, long max, String doc,
        java.util.function.BiFunction<ArchProfileFactory, ArchProfile, String> current, Allowed allowed, MachineApply machine,
        List<String> values) {
      return new Knob(key, type, min, max, doc, current, allowed, (p, v) -> p, machine, values);
    }
  }

  /** Applies a checked value to the machine's hypervisor configuration. */
  @FunctionalInterface
  public interface MachineApply {
    HypervisorConfig to(HypervisorConfig hypervisor, String value);
  }

  /** The values a profile allows for a knob; empty: the knob cannot take effect on it. */
  @FunctionalInterface
  public interface Allowed {
    List<String> on(ArchProfileFactory factory, ArchProfile profile);
  }

  /** Applies a checked value. */
  @FunctionalInterface
  public interface Apply {
    ArchProfile to(ArchProfile profile, String value);
  }

  private static final List<String> BOOLEANS = List.of("true", "false");
  private static final List<String> YIELD_VARIANTS = List.of("none", "ready", "v3.10", "v3.2", "v3.8", "v4.14");
  private static final List<String> TICK_PHASES = List.of("aligned", "legacy", "skewed");

  /** Every knob, by key. Adding a knob is adding one entry here. */
  public static final ImmutableSortedMap<String, Knob> KNOBS = ImmutableSortedMap.<String, Knob>naturalOrder()
      .put("kernel-era", new Knob("kernel-era", Type.ENUM, 0, 0,
          "the kernel generation of host and guests, among the profile's eras; it sets what vcpu_is_preempted"
              + " answers (the era's semantics)",
          (f, p) -> f.kernelEras().isEmpty() ? "-" : f.kernelEras().get(0).name(),
          (f, p) -> f.kernelEras().stream().map(KernelEra::name).sorted().toList(),
          (p, v) -> p, (hv, v) -> hv, List.of()))
      .put("ple", new Knob("ple", Type.BOOLEAN, 0, 0,
          "pause-loop exiting / WFE trapping of spinning vCPUs (kvm_intel ple_gap=0 switches PLE off)",
          (f, p) -> Boolean.toString(p.hypervisor().spinTrap().enabled()),
          (f, p) -> trapped(p) ? BOOLEANS : List.of("false"),
          (p, v) -> spinTrap(p, t -> new SpinTrap(Boolean.parseBoolean(v), t.trigger(), t.gapCycles(), t.growFactor(),
              Boolean.parseBoolean(v) && t.directedYield()))))
      .put("ple-window", new Knob("ple-window", Type.INTEGER, 1, 1L << 30,
          "cycles of spinning before the trap fires (kvm_intel ple_window; cost PLE_WINDOW)",
          (f, p) -> Long.toString((long) p.costs().value(CostKey.PLE_WINDOW)),
          (f, p) -> trapped(p) ? List.of("[1, 1073741824]") : List.of(),
          (p, v) -> cost(p, CostKey.PLE_WINDOW, Long.parseLong(v), "hypervisor.ple-window")))
      .put("ple-grow", new Knob("ple-grow", Type.INTEGER, 1, 64,
          "factor the PLE window grows by after each trap (kvm_intel ple_window_grow; 1: fixed window)",
          (f, p) -> Integer.toString(p.hypervisor().spinTrap().growFactor()),
          (f, p) -> trapped(p) && p.hypervisor().spinTrap().trigger() == SpinTrap.Trigger.PAUSE_LOOP
              ? List.of("[1, 64]") : List.of(),
          (p, v) -> spinTrap(p, t -> new SpinTrap(t.enabled(), t.trigger(), t.gapCycles(), Integer.parseInt(v),
              t.directedYield()))))
      .put("directed-yield", new Knob("directed-yield", Type.ENUM, 0, 0,
          "the trap handler's kvm_vcpu_on_spin: v3.2, v3.8 (dy_eligible, -ESRCH tries), v3.10 (only preempted"
              + " vCPUs), v4.14 (and not those preempted in guest user mode), ready (only vCPUs preempted or"
              + " woken since they ran, vcpu->ready of d73eb57b80b9, 2019),"
              + " or none; true is the profile's variant, false none",
          (f, p) -> p.hypervisor().spinTrap().directedYield() ? variant(Platforms.hypervisor(p).directedYield()) : "none",
          (f, p) -> trapped(p) ? YIELD_VARIANTS : List.of("none"),
          (p, v) -> spinTrap(p, t -> new SpinTrap(t.enabled(), t.trigger(), t.gapCycles(), t.growFactor(),
              t.enabled() && yieldsTo(v))),
          (hv, v) -> yieldsTo(v) && !v.equals("true") ? hv.withDirectedYield(yieldVariant(v)) : hv,
          List.of("none", "v3.2", "v3.8", "v3.10", "v4.14", "ready", "true", "false")))
      .put("pv-kick-yield", Knob.machine("pv-kick-yield", Type.BOOLEAN, 0, 0,
          "x86 KVM_HC_KICK_CPU also yields to the kicked vCPU if it is ready (kvm_sched_yield after"
              + " kvm_pv_kick_cpu_op: the queue-head boost of 266e85a5ec91, 2019); needs directed-yield: ready",
          (f, p) -> Boolean.toString(Platforms.hypervisor(p).kickYield()),
          (f, p) -> pauseLoop(p) && linuxHost(p) ? BOOLEANS : List.of(),
          (hv, v) -> hv.withKickYield(Boolean.parseBoolean(v)), List.of()))
      .put("ple-shrink", Knob.machine("ple-shrink", Type.INTEGER, 0, 1L << 30,
          "kvm_intel ple_window_shrink (3.18+): 0 resets a vCPU's PLE window to the base when it is scheduled in;"
              + " below the base window it divides, else it subtracts",
          (f, p) -> Integer.toString(Platforms.hypervisor(p).pleShrink()),
          (f, p) -> pauseLoop(p) ? List.of("[0, 1073741824]") : List.of(),
          (hv, v) -> hv.withPleShrink(Integer.parseInt(v)), List.of()))
      .put("host-tick", Knob.machine("host-tick", Type.ENUM, 0, 0,
          "where host CPUs' ticks fall: aligned on the jiffy grid (sched_skew_tick=0), skewed (sched_skew_tick=1),"
              + " or legacy (one period after the CPU left idle)",
          (f, p) -> Platforms.hypervisor(p).hostActivity().tickPhase().name().toLowerCase(Locale.ROOT),
          (f, p) -> linuxHost(p) ? TICK_PHASES : List.of(),
          (hv, v) -> hv.withHostActivity(hv.hostActivity().withTickPhase(
              HostActivity.TickPhase.valueOf(v.toUpperCase(Locale.ROOT)))), TICK_PHASES))
      .put("host-softirq-rate", Knob.machine("host-softirq-rate", Type.INTEGER, 0, 1_000_000,
          "softirqs per second on each host CPU (timer, RCU, block and network completions of the rest of the host)",
          (f, p) -> Long.toString((long) Platforms.hypervisor(p).hostActivity().softirqPerSecond()),
          (f, p) -> linuxHost(p) ? List.of("[0, 1000000]") : List.of(),
          (hv, v) -> activity(hv, a -> new HostActivity(a.tickPhase(), Long.parseLong(v), a.softirqNs(),
              a.kworkerPerSecond(), a.kworkerNs())), List.of()))
      .put("host-softirq-time", Knob.machine("host-softirq-time", Type.DURATION, 1, 1_000_000_000L,
          "handler time of one host softirq (__do_softirq)",
          (f, p) -> Durations.format(Platforms.hypervisor(p).hostActivity().softirqNs()),
          (f, p) -> linuxHost(p) ? List.of("[1ns, 1s]") : List.of(),
          (hv, v) -> activity(hv, a -> new HostActivity(a.tickPhase(), a.softirqPerSecond(), Durations.parse(v),
              a.kworkerPerSecond(), a.kworkerNs())), List.of()))
      .put("host-kworker-rate", Knob.machine("host-kworker-rate", Type.INTEGER, 0, 1_000_000,
          "wakeups per second of each host CPU's bound kworker (vmstat, writeback, flush work)",
          (f, p) -> Long.toString((long) Platforms.hypervisor(p).hostActivity().kworkerPerSecond()),
          (f, p) -> linuxHost(p) ? List.of("[0, 1000000]") : List.of(),
          (hv, v) -> activity(hv, a -> new HostActivity(a.tickPhase(), a.softirqPerSecond(), a.softirqNs(),
              Long.parseLong(v), a.kworkerNs())), List.of()))
      .put("host-kworker-time", Knob.machine("host-kworker-time", Type.DURATION, 1, 1_000_000_000L,
          "work per host kworker wakeup (process_one_work)",
          (f, p) -> Durations.format(Platforms.hypervisor(p).hostActivity().kworkerNs()),
          (f, p) -> linuxHost(p) ? List.of("[1ns, 1s]") : List.of(),
          (hv, v) -> activity(hv, a -> new HostActivity(a.tickPhase(), a.softirqPerSecond(), a.softirqNs(),
              a.kworkerPerSecond(), Durations.parse(v))), List.of()))
      .put("halt-poll", new Knob("halt-poll", Type.DURATION, 0, 1_000_000_000L,
          "how long a halted vCPU thread polls before it sleeps (kvm halt_poll_ns; cost HALT_POLL)",
          (f, p) -> Durations.format(p.ns(CostKey.HALT_POLL)),
          (f, p) -> p.hypervisor().hostHz() == 0 ? List.of() : List.of("[0, 1s]"),
          (p, v) -> cost(p, CostKey.HALT_POLL, Durations.parse(v), "hypervisor.halt-poll")))
      .put("vcpu-is-preempted", new Knob("vcpu-is-preempted", Type.ENUM, 0, 0,
          "what the guest's vcpu_is_preempted(cpu) answers, among the semantics the profile lists",
          (f, p) -> kebab(p.hypervisor().vcpuPreempted()),
          (f, p) -> f.vcpuPreemptedSemantics().stream().sorted().map(HypervisorSettings::kebab).toList(),
          (p, v) -> p.withHypervisor(p.hypervisor().toBuilder().vcpuPreempted(semantics(v)).build()),
          (hv, v) -> hv, semanticsValues()))
      .build();

  private HypervisorSettings() {}

  /** {@code X86_STEAL_TIME_ANY_PUT} as written in YAML: {@code x86-steal-time-any-put}. */
  public static String kebab(VcpuPreemptedSemantics s) {
    return s.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  private static VcpuPreemptedSemantics semantics(String value) {
    return VcpuPreemptedSemantics.valueOf(value.toUpperCase(Locale.ROOT).replace('-', '_'));
  }

  /** {@code V3_10} as written in YAML: {@code v3.10}; {@code NONE}: {@code none}. */
  public static String variant(DirectedYield d) {
    return d == DirectedYield.NONE ? "none" : d.name().toLowerCase(Locale.ROOT).replace('_', '.');
  }

  private static boolean yieldsTo(String value) {
    return !value.equals("none") && !value.equals("false");
  }

  private static DirectedYield yieldVariant(String value) {
    return DirectedYield.valueOf(value.toUpperCase(Locale.ROOT).replace('.', '_'));
  }

  private static List<String> semanticsValues() {
    List<String> all = new ArrayList<>();
    for (VcpuPreemptedSemantics s : VcpuPreemptedSemantics.values()) {
      all.add(kebab(s));
    }
    return List.copyOf(all);
  }

  /** x86 pause-loop exiting (a window to grow and shrink), not arm64's WFE trapping. */
  private static boolean pauseLoop(ArchProfile p) {
    return trapped(p) && p.hypervisor().spinTrap().trigger() == SpinTrap.Trigger.PAUSE_LOOP;
  }

  /** A Linux/KVM host with its background; a partition hypervisor (PowerVM) has none. */
  private static boolean linuxHost(ArchProfile p) {
    return p.hypervisor().hostHz() > 0;
  }

  private static HypervisorConfig activity(HypervisorConfig hv, java.util.function.UnaryOperator<HostActivity> change) {
    return hv.withHostActivity(change.apply(hv.hostActivity()));
  }

  /** Whether the profile's hypervisor traps spinning at all (KVM: yes; PowerVM, s390: no). */
  private static boolean trapped(ArchProfile p) {
    return p.hypervisor().spinTrap().enabled();
  }

  private static ArchProfile spinTrap(ArchProfile p, java.util.function.UnaryOperator<SpinTrap> change) {
    HypervisorBehaviour h = p.hypervisor();
    return p.withHypervisor(h.toBuilder().spinTrap(change.apply(h.spinTrap())).build());
  }

  private static ArchProfile cost(ArchProfile p, CostKey key, double value, String path) {
    return p.withCosts(p.costs().with(List.of(Cost.of(key, value, Cost.Confidence.E,
        "experiment: " + path + " (profile: " + p.costs().value(key) + ")"))));
  }

  /**
   * The problems of {@code settings} on {@code factory}'s profile, one per key, with path {@code
   * hypervisor.<key>}: unknown keys (with "did you mean"), values of the wrong type, and values
   * the profile cannot honour (with the values it allows).
   */
  public static List<Problem> check(Map<String, String> settings, ArchProfileFactory factory) {
    List<Problem> problems = new ArrayList<>();
    ArchProfile profile = factory.create();
    for (Map.Entry<String, String> e : new java.util.TreeMap<>(settings).entrySet()) {
      String path = "hypervisor." + e.getKey();
      Knob knob = KNOBS.get(e.getKey());
      if (knob == null) {
        problems.add(new Problem(path, DidYouMean.unknownMessage("hypervisor key", e.getKey(), KNOBS.keySet())));
        continue;
      }
      String value = e.getValue() == null ? "" : e.getValue().strip();
      List<String> allowed = knob.allowed().on(factory, profile);
      if (allowed.isEmpty()) {
        problems.add(new Problem(path, "[" + value + "] cannot take effect on [" + profile.name() + "]: "
            + notHonoured(knob, profile) + "; leave it out"));
        continue;
      }
      String problem = typeProblem(knob, value, allowed);
      if (problem == null && (knob.type() == Type.BOOLEAN || knob.type() == Type.ENUM)
          && !allowed.contains(alias(knob, value, profile))) {
        problem = "[" + value + "] is not supported by [" + profile.name() + "]; allowed: " + allowed;
      }
      if (problem != null) {
        problems.add(new Problem(path, problem));
      }
    }
    String era = settings.get("kernel-era");
    String semantics = settings.get("vcpu-is-preempted");
    if (problems.isEmpty() && era != null && semantics != null) {
      String eraSemantics = kebab(era(factory, era.strip()).vcpuPreempted());
      if (!eraSemantics.equals(semantics.strip())) {
        problems.add(new Problem("hypervisor.vcpu-is-preempted", "[" + semantics.strip() + "] contradicts"
            + " hypervisor.kernel-era [" + era.strip() + "], whose vcpu_is_preempted answers [" + eraSemantics
            + "]; leave one out"));
      }
    }
    if (problems.isEmpty() && "false".equals(settings.getOrDefault("ple", "").strip())) {
      // with the trap off, nothing grows, shrinks, fires after a window or yields
      for (String key : List.of("directed-yield", "ple-grow", "ple-shrink", "ple-window")) {
        String v = settings.get(key);
        if (v != null && !(key.equals("directed-yield") && !yieldsTo(v.strip()))) {
          problems.add(new Problem("hypervisor." + key, "[" + v.strip() + "] cannot take effect with hypervisor.ple:"
              + " false (nothing traps); leave one out"));
        }
      }
    }
    if (problems.isEmpty() && "true".equals(settings.getOrDefault("pv-kick-yield", "").strip())
        && !"false".equals(settings.getOrDefault("ple", "").strip())
        && !"ready".equals(settings.getOrDefault("directed-yield", "").strip())) {
      // kvm_sched_yield reads vcpu->ready, which came with the ready filter of kvm_vcpu_on_spin
      problems.add(new Problem("hypervisor.pv-kick-yield", "[true] needs hypervisor.directed-yield: ready (the"
          + " kick's yield reads vcpu->ready, which came with that kvm_vcpu_on_spin); set it, or leave this out"));
    }
    if (problems.isEmpty() && settings.containsKey("ple-shrink")
        && apply(factory, profile, settings).hypervisor().spinTrap().growFactor() == 1) {
      problems.add(new Problem("hypervisor.ple-shrink", "[" + settings.get("ple-shrink").strip() + "] cannot take"
          + " effect on [" + profile.name() + "]: its PLE window does not grow (ple-grow 1), so there is nothing to"
          + " shrink; set hypervisor.ple-grow above 1, or leave it out"));
    }
    if (problems.isEmpty()) {
      try {
        adjust(Platforms.hypervisor(apply(factory, profile, settings)), settings);
      } catch (IllegalArgumentException ex) {
        problems.add(new Problem("hypervisor", "refused by [" + profile.name() + "]: " + ex.getMessage()));
      }
    }
    return problems;
  }

  /** directed-yield's booleans: true is the profile's variant, false none. */
  private static String alias(Knob knob, String value, ArchProfile profile) {
    if (!knob.key().equals("directed-yield")) {
      return value;
    }
    return switch (value) {
      case "true" -> trapped(profile) ? variant(Platforms.hypervisor(profile).directedYield()) : "true";
      case "false" -> "none";
      default -> value;
    };
  }

  private static String notHonoured(Knob knob, ArchProfile profile) {
    return switch (knob.key()) {
      case "ple-grow" -> "its hypervisor has no growing pause-loop window (spin trap "
          + (profile.hypervisor().spinTrap().enabled() ? profile.hypervisor().spinTrap().trigger() : "none") + ")";
      case "halt-poll" -> "a partition hypervisor does not halt-poll";
      case "pv-kick-yield" -> "the queue-head boost is x86 KVM's KVM_HC_KICK_CPU handler (arch/x86/kvm/x86.c); this"
          + " profile's hypervisor has no such kick";
      case "kernel-era" -> "the profile is one kernel era (it lists no others); choose what vcpu_is_preempted"
          + " answers with hypervisor.vcpu-is-preempted";
      case "ple-shrink" -> "its hypervisor has no pause-loop window to shrink (spin trap "
          + (profile.hypervisor().spinTrap().enabled() ? profile.hypervisor().spinTrap().trigger() : "none") + ")";
      case "host-tick", "host-softirq-rate", "host-softirq-time", "host-kworker-rate", "host-kworker-time" ->
          "a partition hypervisor has no Linux host whose ticks, softirqs and kworkers would run";
      default -> "its hypervisor has no spin trap";
    };
  }

  private static String typeProblem(Knob knob, String value, List<String> allowed) {
    try {
      switch (knob.type()) {
        case BOOLEAN -> {
          if (!BOOLEANS.contains(value)) {
            return "[" + value + "] is not a boolean; allowed: " + allowed;
          }
        }
        case INTEGER -> {
          long n = Long.parseLong(value);
          if (n < knob.min() || n > knob.max()) {
            return "[" + value + "] is outside " + allowed.get(0);
          }
        }
        case DURATION -> {
          long ns = Durations.parse(value);
          if (ns < knob.min() || ns > knob.max()) {
            return "[" + value + "] is outside " + allowed.get(0);
          }
        }
        case ENUM -> {
          if (!(knob.values().isEmpty() ? allowed : knob.values()).contains(value)) {
            return DidYouMean.unknownMessage(knob.key() + " value", value, allowed);
          }
        }
      }
    } catch (RuntimeException e) {
      return "[" + value + "] is not a " + (knob.type() == Type.DURATION ? "duration such as 200us" : "whole number")
          + "; allowed: " + allowed;
    }
    return null;
  }

  /**
   * {@code profile} with {@code settings} applied in key order ({@code ple} before {@code
   * directed-yield}, so switching PLE off also switches directed yield off); the settings must have
   * passed {@link #check}.
   */
  public static ArchProfile apply(ArchProfileFactory factory, ArchProfile profile, Map<String, String> settings) {
    ArchProfile p = profile;
    String era = settings.get("kernel-era");
    if (era != null) {
      KernelEra chosen = era(factory, era.strip());
      p = p.withHypervisor(p.hypervisor().toBuilder().vcpuPreempted(chosen.vcpuPreempted()).build());
    }
    for (Map.Entry<String, String> e : new java.util.TreeMap<>(settings).entrySet()) {
      if (e.getKey().equals("directed-yield") || e.getKey().equals("kernel-era")) {
        continue;
      }
      p = KNOBS.get(e.getKey()).apply().to(p, e.getValue().strip());
    }
    String yield = settings.get("directed-yield");
    return yield == null ? p : KNOBS.get("directed-yield").apply().to(p, yield.strip());
  }

  /** {@code factory}'s era named {@code name}. */
  public static KernelEra era(ArchProfileFactory factory, String name) {
    return factory.kernelEras().stream().filter(e -> e.name().equals(name)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException(DidYouMean.unknownMessage("kernel era", name,
            factory.kernelEras().stream().map(KernelEra::name).toList())));
  }

  /**
   * The machine's hypervisor configuration (built by {@code Platforms.hypervisor} from the changed
   * profile) with the settings that live there applied: the directed-yield variant, {@code
   * ple-shrink} and the host background; the settings must have passed {@link #check}.
   */
  public static HypervisorConfig adjust(HypervisorConfig hypervisor, Map<String, String> settings) {
    HypervisorConfig hv = hypervisor;
    for (Map.Entry<String, String> e : new java.util.TreeMap<>(settings).entrySet()) {
      hv = KNOBS.get(e.getKey()).machine().to(hv, e.getValue().strip());
    }
    return hv;
  }

  /** {@code key: default (allowed: ...)} lines for {@code factory}'s profile, for listings. */
  public static ImmutableList<String> describe(ArchProfileFactory factory) {
    ArchProfile p = factory.create();
    ImmutableList.Builder<String> lines = ImmutableList.builder();
    for (Knob k : KNOBS.values()) {
      String current = k.current().apply(factory, p);
      List<String> allowed = k.allowed().on(factory, p);
      lines.add(k.key() + " " + current + " " + (allowed.isEmpty() ? "(not on this profile)"
          : (k.type() == Type.BOOLEAN || k.type() == Type.ENUM ? String.join("|", allowed) : allowed.get(0)))
          + " " + k.doc());
    }
    return lines.build();
  }
}

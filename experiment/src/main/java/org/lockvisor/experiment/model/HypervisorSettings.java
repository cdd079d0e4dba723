package org.lockvisor.experiment.model;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSortedMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.lockvisor.arch.spi.ArchProfile;
import org.lockvisor.arch.spi.ArchProfileFactory;
import org.lockvisor.arch.spi.Cost;
import org.lockvisor.arch.spi.CostKey;
import org.lockvisor.arch.spi.HypervisorBehaviour;
import org.lockvisor.arch.spi.HypervisorBehaviour.SpinTrap;
import org.lockvisor.arch.spi.HypervisorBehaviour.VcpuPreemptedSemantics;
import org.lockvisor.core.plugin.DidYouMean;

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
 * record or a cost). The run then builds its machine from the changed profile, so the settings
 * reach the machine through the same path as the profile's own values (Platforms).
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
   */
  public record Knob(String key, Type type, long min, long max, String doc,
      java.util.function.Function<ArchProfile, String> current, Allowed allowed, Apply apply) {}

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

  /** Every knob, by key. Adding a knob is adding one entry here. */
  public static final ImmutableSortedMap<String, Knob> KNOBS = ImmutableSortedMap.<String, Knob>naturalOrder()
      .put("ple", new Knob("ple", Type.BOOLEAN, 0, 0,
          "pause-loop exiting / WFE trapping of spinning vCPUs (kvm_intel ple_gap=0 switches PLE off)",
          p -> Boolean.toString(p.hypervisor().spinTrap().enabled()),
          (f, p) -> trapped(p) ? BOOLEANS : List.of("false"),
          (p, v) -> spinTrap(p, t -> new SpinTrap(Boolean.parseBoolean(v), t.trigger(), t.gapCycles(), t.growFactor(),
              Boolean.parseBoolean(v) && t.directedYield()))))
      .put("ple-window", new Knob("ple-window", Type.INTEGER, 1, 1L << 30,
          "cycles of spinning before the trap fires (kvm_intel ple_window; cost PLE_WINDOW)",
          p -> Long.toString((long) p.costs().value(CostKey.PLE_WINDOW)),
          (f, p) -> trapped(p) ? List.of("[1, 1073741824]") : List.of(),
          (p, v) -> cost(p, CostKey.PLE_WINDOW, Long.parseLong(v), "hypervisor.ple-window")))
      .put("ple-grow", new Knob("ple-grow", Type.INTEGER, 1, 64,
          "factor the PLE window grows by after each trap (kvm_intel ple_window_grow; 1: fixed window)",
          p -> Integer.toString(p.hypervisor().spinTrap().growFactor()),
          (f, p) -> trapped(p) && p.hypervisor().spinTrap().trigger() == SpinTrap.Trigger.PAUSE_LOOP
              ? List.of("[1, 64]") : List.of(),
          (p, v) -> spinTrap(p, t -> new SpinTrap(t.enabled(), t.trigger(), t.gapCycles(), Integer.parseInt(v),
              t.directedYield()))))
      .put("directed-yield", new Knob("directed-yield", Type.BOOLEAN, 0, 0,
          "whether the trap handler yields to a preempted vCPU of the VM (kvm_vcpu_on_spin)",
          p -> Boolean.toString(p.hypervisor().spinTrap().directedYield()),
          (f, p) -> trapped(p) ? BOOLEANS : List.of("false"),
          (p, v) -> spinTrap(p, t -> new SpinTrap(t.enabled(), t.trigger(), t.gapCycles(), t.growFactor(),
              t.enabled() && Boolean.parseBoolean(v)))))
      .put("halt-poll", new Knob("halt-poll", Type.DURATION, 0, 1_000_000_000L,
          "how long a halted vCPU thread polls before it sleeps (kvm halt_poll_ns; cost HALT_POLL)",
          p -> Durations.format(p.ns(CostKey.HALT_POLL)),
          (f, p) -> p.hypervisor().hostHz() == 0 ? List.of() : List.of("[0, 1s]"),
          (p, v) -> cost(p, CostKey.HALT_POLL, Durations.parse(v), "hypervisor.halt-poll")))
      .put("vcpu-is-preempted", new Knob("vcpu-is-preempted", Type.ENUM, 0, 0,
          "what the guest's vcpu_is_preempted(cpu) answers, among the semantics the profile lists",
          p -> kebab(p.hypervisor().vcpuPreempted()),
          (f, p) -> f.vcpuPreemptedSemantics().stream().sorted().map(HypervisorSettings::kebab).toList(),
          (p, v) -> p.withHypervisor(p.hypervisor().toBuilder().vcpuPreempted(semantics(v)).build())))
      .build();

  private HypervisorSettings() {}

  /** {@code X86_STEAL_TIME_ANY_PUT} as written in YAML: {@code x86-steal-time-any-put}. */
  public static String kebab(VcpuPreemptedSemantics s) {
    return s.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  private static VcpuPreemptedSemantics semantics(String value) {
    return VcpuPreemptedSemantics.valueOf(value.toUpperCase(Locale.ROOT).replace('-', '_'));
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
      if (problem == null && (knob.type() == Type.BOOLEAN || knob.type() == Type.ENUM) && !allowed.contains(value)) {
        problem = "[" + value + "] is not supported by [" + profile.name() + "]; allowed: " + allowed;
      }
      if (problem != null) {
        problems.add(new Problem(path, problem));
      }
    }
    if (problems.isEmpty()) {
      try {
        apply(profile, settings);
      } catch (IllegalArgumentException ex) {
        problems.add(new Problem("hypervisor", "refused by [" + profile.name() + "]: " + ex.getMessage()));
      }
    }
    return problems;
  }

  private static String notHonoured(Knob knob, ArchProfile profile) {
    return switch (knob.key()) {
      case "ple-grow" -> "its hypervisor has no growing pause-loop window (spin trap "
          + (profile.hypervisor().spinTrap().enabled() ? profile.hypervisor().spinTrap().trigger() : "none") + ")";
      case "halt-poll" -> "a partition hypervisor does not halt-poll";
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
          Set<String> all = new TreeSet<>();
          for (VcpuPreemptedSemantics s : VcpuPreemptedSemantics.values()) {
            all.add(kebab(s));
          }
          if (!all.contains(value)) {
            return DidYouMean.unknownMessage("vcpu_is_preempted semantics", value, allowed);
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
  public static ArchProfile apply(ArchProfile profile, Map<String, String> settings) {
    ArchProfile p = profile;
    for (Map.Entry<String, String> e : new java.util.TreeMap<>(settings).entrySet()) {
      if (e.getKey().equals("directed-yield")) {
        continue;
      }
      p = KNOBS.get(e.getKey()).apply().to(p, e.getValue().strip());
    }
    String yield = settings.get("directed-yield");
    return yield == null ? p : KNOBS.get("directed-yield").apply().to(p, yield.strip());
  }

  /** {@code key: default (allowed: ...)} lines for {@code factory}'s profile, for listings. */
  public static ImmutableList<String> describe(ArchProfileFactory factory) {
    ArchProfile p = factory.create();
    ImmutableList.Builder<String> lines = ImmutableList.builder();
    for (Knob k : KNOBS.values()) {
      String current = k.current().apply(p);
      List<String> allowed = k.allowed().on(factory, p);
      lines.add(k.key() + " " + current + " " + (allowed.isEmpty() ? "(not on this profile)"
          : (k.type() == Type.BOOLEAN || k.type() == Type.ENUM ? String.join("|", allowed) : allowed.get(0)))
          + " " + k.doc());
    }
    return lines.build();
  }
}

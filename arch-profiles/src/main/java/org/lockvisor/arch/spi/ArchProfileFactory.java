package org.lockvisor.arch.spi;

import com.google.common.collect.ImmutableSortedSet;
import java.util.Locale;
import java.util.Set;
import org.lockvisor.core.plugin.OptionBinder;
import org.lockvisor.core.plugin.Plugin;
import org.lockvisor.core.plugin.PluginContext;

/**
 * Plugin SPI for arch profiles. Implementations are one small {@code final} class registered with
 * {@code @AutoService(ArchProfileFactory.class)}; {@link #name()} must equal the created
 * profile's {@link ArchProfile#name()}.
 */
public interface ArchProfileFactory extends Plugin {

  /** Plugin kind of every arch profile. */
  String KIND = "arch";

  @Override
  default String kind() {
    return KIND;
  }

  /**
   * The profile, as {@code context} describes it (its options bound by the framework; the built-in
   * profiles declare none). Immutable, so implementations may return a shared instance.
   */
  ArchProfile create(PluginContext context);

  /** The profile with no options given (every declared option at its default). */
  default ArchProfile create() {
    return create(PluginContext.of(name(), OptionBinder.bind(this, java.util.Map.of())));
  }

  /**
   * The {@code vcpu_is_preempted} semantics an experiment may choose on this profile ({@code
   * hypervisor: {vcpu-is-preempted: ...}}): the hypervisors of this architecture that expose the
   * check, and none where it can be missing. By default only the profile's own.
   */
  default Set<HypervisorBehaviour.VcpuPreemptedSemantics> vcpuPreemptedSemantics() {
    return Set.of(create().hypervisor().vcpuPreempted());
  }

  /**
   * The kernel generations an experiment may choose on this profile ({@code hypervisor:
   * {kernel-era: ...}}), the profile's own first; each says what changes with it ({@link
   * KernelEra}). Empty (the default): the profile is one era and no other can be chosen.
   */
  default java.util.List<KernelEra> kernelEras() {
    return java.util.List.of();
  }

  /**
   * Derived from the hypervisor behaviour, so the metadata cannot drift from the profile:
   * {@code vcpu-is-preempted}, {@code spin-trap}, {@code directed-yield}, {@code steal-time},
   * {@code posted-interrupts}, {@code dispatch-window}, and {@code notify-} plus the notify path.
   */
  @Override
  default Set<String> capabilities() {
    HypervisorBehaviour h = create().hypervisor();
    ImmutableSortedSet.Builder<String> caps = ImmutableSortedSet.naturalOrder();
    if (h.vcpuPreempted() != HypervisorBehaviour.VcpuPreemptedSemantics.NONE) {
      caps.add("vcpu-is-preempted");
    }
    if (h.spinTrap().enabled()) {
      caps.add("spin-trap");
    }
    if (h.spinTrap().directedYield()) {
      caps.add("directed-yield");
    }
    if (h.stealTime()) {
      caps.add("steal-time");
    }
    if (h.postedInterrupts()) {
      caps.add("posted-interrupts");
    }
    if (h.dispatchWindowNs() > 0) {
      caps.add("dispatch-window");
    }
    caps.add("notify-" + h.notifyPath().name().toLowerCase(Locale.ROOT).replace('_', '-'));
    return caps.build();
  }
}

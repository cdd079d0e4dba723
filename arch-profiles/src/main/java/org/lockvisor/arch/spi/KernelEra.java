package org.lockvisor.arch.spi;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * A kernel generation an experiment may run on an arch profile ({@code hypervisor: {kernel-era:
 * ...}}): the host's KVM and the guest kernels of that generation, and what changes with it. Today
 * an era decides what the guest's {@code vcpu_is_preempted(cpu)} answers — the check arrived on
 * x86, powerpc and s390 in 4.10, while mainline arm64 keeps it constant false and only openEuler's
 * paravirtual scheduling series adds it — so an experiment names the era instead of the semantics.
 *
 * @param name how the experiment writes it, e.g. {@code 5.10-openeuler}: letters, digits, '.', '-'
 * @param summary one line: what the era is and where its behaviour comes from
 * @param vcpuPreempted what {@code vcpu_is_preempted} answers on it; must be one the profile lists
 *     ({@link ArchProfileFactory#vcpuPreemptedSemantics})
 */
public record KernelEra(String name, String summary, HypervisorBehaviour.VcpuPreemptedSemantics vcpuPreempted) {
  public KernelEra {
    checkArgument(name != null && name.matches("[A-Za-z0-9][A-Za-z0-9.-]*"),
        "kernel era name must be letters, digits, '.' and '-': [%s]", name);
    checkArgument(summary != null && !summary.isBlank(), "kernel era [%s] needs a summary", name);
    checkNotNull(vcpuPreempted, "kernel era [%s] needs its vcpu_is_preempted semantics", name);
  }
}

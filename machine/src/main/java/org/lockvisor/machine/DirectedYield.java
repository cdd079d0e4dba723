package org.lockvisor.machine;

/**
 * The era's variant of KVM's pause-loop handler {@code kvm_vcpu_on_spin} (virt/kvm/kvm_main.c)
 * and of the {@code yield_to} it calls.
 */
public enum DirectedYield {
  /** No directed yield: the handler returns and the vCPU re-enters (PLE exits only). */
  NONE,
  /**
   * Linux 3.2 (217ece6129f2 era): round robin starting <em>at</em> the last boosted vCPU ({@code
   * i < last_boosted_vcpu} skips), skip self and halted vCPUs ({@code waitqueue_active}), skip a
   * target in guest mode ({@code PF_VCPU}); {@code yield_to} returns a bool, so failures never
   * end the search; no eligibility filter.
   */
  V3_2,
  /**
   * Linux 3.7–3.9: adds {@code kvm_vcpu_eligible_for_directed_yield} (4a55dd72a7, 3.7: a vCPU
   * inside its own PLE handler is eligible only every other time it is checked, {@code
   * dy_eligible} alternation), starts <em>after</em> the last boosted vCPU, and (c45c528e, 3.8)
   * ends the search after three {@code -ESRCH} answers of {@code yield_to}.
   */
  V3_8,
  /**
   * As {@link #V3_8}, and only vCPUs whose thread was preempted while runnable ({@code
   * vcpu->preempted}, set in {@code kvm_sched_out}, cleared in {@code kvm_sched_in}) are
   * candidates: "kvm: Iterate over only vcpus that are preempted" (Raghavendra K T, 2013), read
   * in a 3.10 tree (virt/kvm/kvm_main.c of the LG msm8992 3.10 kernel). A vCPU kicked out of a
   * halt that has not run since is not a candidate (5.8 added {@code vcpu->ready} for that).
   */
  V3_10;

  public boolean enabled() {
    return this != NONE;
  }
}

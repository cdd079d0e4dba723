package org.lockvisor.machine.config;

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
   * halt that has not run since is not a candidate ({@link #READY} added {@code vcpu->ready} for
   * that). The filter is still there in 4.19 (virt/kvm/kvm_main.c of a 4.19 tree, read for issue
   * 34), where {@link #V4_14}'s filter follows it.
   */
  V3_10,
  /**
   * As {@link #V3_10}, and a handler entered from guest kernel mode ({@code yield_to_kernel_mode}:
   * x86 {@code handle_pause} always passes true, PLE firing only at CPL 0) skips a candidate that
   * was not in guest kernel mode when it was put ({@code !kvm_arch_vcpu_in_kernel(vcpu)}, x86
   * {@code vcpu->arch.preempted_in_kernel} written in {@code kvm_arch_vcpu_put}): "KVM: add
   * spinlock optimization framework" (Longpeng, 2017, 4.14: absent from a 4.13.4 tree), read in the 4.19
   * {@code kvm_vcpu_on_spin} and a later vmx.c {@code handle_pause}. Counted as {@code
   * skip_user_mode}.
   */
  V4_14,
  /**
   * As {@link #V4_14} with the candidate filter on {@code vcpu->ready} instead of {@code
   * vcpu->preempted} (the user-mode skip then applies to preempted candidates only, {@code
   * READ_ONCE(vcpu->preempted) && yield_to_kernel_mode && ...}, as later trees have it): "KVM:
   * Boost vCPUs that are delivering interrupts" (d73eb57b80b9, Wanpeng Li, 2019; its diff of
   * virt/kvm/kvm_main.c read for issue 34). {@code ready} is set where {@code
   * preempted} is ({@code kvm_sched_out} of a runnable thread) and also by {@code
   * kvm_vcpu_wake_up} when it wakes a vCPU sleeping in {@code kvm_vcpu_block} (a kick, an IPI or
   * another interrupt delivered to a halted vCPU), and cleared by {@code kvm_sched_in}: a vCPU
   * woken to take an IPI but not yet running becomes a candidate, which is what a sender spinning
   * in {@code smp_call_function_many} waits for. In 5.3: absent from a 5.2.1 tree's
   * virt/kvm/kvm_main.c, present in a 5.3.1 tree's.
   */
  READY;

  /** Whether the handler skips candidates preempted in guest user mode (4.14+). */
  public boolean kernelModeFilter() {
    return this == V4_14 || this == READY;
  }

  public boolean enabled() {
    return this != NONE;
  }
}

package org.lockvisor.machine;

import com.google.common.collect.ImmutableMap;

/**
 * What one VM's vCPUs did to hand their physical CPU to a sibling: pause-loop / WFE exits, the
 * directed yields of {@code kvm_vcpu_on_spin} (attempts, successes, failures by reason, skipped
 * candidates by reason), PowerVM {@code H_CONFER} and {@code H_PROD}, and paravirtual halts
 * ({@code pv_wait} from a busy guest CPU) and kicks ({@code KVM_HC_KICK_CPU}).
 *
 * @param pleExits pause-loop / WFE exits
 * @param counts the counters, indexed by {@link Counter}
 */
public record YieldStats(long pleExits, long[] counts) {

  /** The counters, in output order. */
  public enum Counter {
    /** kvm_vcpu_yield_to calls. */
    ATTEMPTS,
    /** yield_to boosted the target. */
    SUCCESSES,
    /** The target was in guest mode (PF_VCPU): kvm_vcpu_yield_to gave up without yield_to. */
    FAIL_IN_GUEST,
    /** yield_to: -ESRCH, the target runs (in the host). */
    FAIL_RUNNING,
    /** yield_to: -ESRCH, the target is not runnable. */
    FAIL_NOT_RUNNABLE,
    /** yield_to_task_fair refused (the target is not on a runqueue the policy can boost). */
    FAIL_NOT_BOOSTED,
    /** A handler that boosted nobody. */
    NO_CANDIDATE,
    /** Candidates skipped: not preempted (3.10+ vcpu->preempted). */
    SKIP_NOT_PREEMPTED,
    /** Candidates skipped: not ready (vcpu->ready, d73eb57b80b9: neither preempted nor woken since it ran). */
    SKIP_NOT_READY,
    /** Candidates skipped: halted (waitqueue_active). */
    SKIP_HALTED,
    /** Candidates skipped: preempted in guest user mode, the spinner in kernel mode (4.14 yield_to_kernel_mode). */
    SKIP_USER_MODE,
    /** Candidates skipped: dy_eligible alternation. */
    SKIP_INELIGIBLE,
    /** Candidates skipped: the handler's own vCPU ({@code vcpu == me}). */
    SKIP_SELF,
    /** Handler entries while another vCPU of the VM was inside its own (in_spin_loop set). */
    HANDLER_OVERLAPS,
    /** H_CONFER to a target processor. */
    CONFER_DIRECTED,
    /** H_CONFER to all (no target). */
    CONFER_ALL,
    /** H_CONFER dispatched the target's VP on the caller's processor. */
    CONFER_DISPATCHED,
    /** H_CONFER to a target that was dispatched already. */
    CONFER_TARGET_RUNNING,
    /** H_CONFER to a target that had ceded. */
    CONFER_TARGET_CEDED,
    /** H_CONFER to a preempted target the dispatcher did not dispatch. */
    CONFER_NOT_DISPATCHED,
    /** H_PROD calls. */
    PRODS,
    /** pv_wait halts (HLT/H_CEDE from a busy guest CPU). */
    PV_HALTS,
    /** pv_kick (KVM_HC_KICK_CPU). */
    PV_KICKS,
    /**
     * KVM_HC_KICK_CPU's kvm_sched_yield toward the kicked vCPU (266e85a5ec91, the queue-head
     * boost): calls that found the target ready and tried kvm_vcpu_yield_to.
     */
    KICK_YIELD_ATTEMPTS,
    /** Of those, yield_to boosted the kicked vCPU. */
    KICK_YIELD_SUCCESSES,
    /** kvm_sched_yield found the kicked vCPU not ready (running, or not woken since it ran): no yield. */
    KICK_YIELD_NOT_READY,
    /** The guest's vcpu_is_preempted evaluations that answered true (steal-time preempted set). */
    PREEMPTED_FLAG_TRUE,
    /** vcpu_is_preempted evaluations that answered false. */
    PREEMPTED_FLAG_FALSE,
    /**
     * True answers about a vCPU whose thread was loaded on its CPU (not scheduled out, not put for
     * an exit to userspace): the flag is written only by kvm_arch_vcpu_put, so this stays 0.
     */
    PREEMPTED_FLAG_TRUE_WHILE_LOADED;

    private final String key = name().toLowerCase(java.util.Locale.ROOT);

    public String key() {
      return key;
    }
  }

  public YieldStats {
    counts = counts.clone();
  }

  public long get(Counter c) {
    return counts[c.ordinal()];
  }

  /** Every counter, PLE exits first, keyed in lower case. */
  public ImmutableMap<String, Long> asMap() {
    ImmutableMap.Builder<String, Long> b = ImmutableMap.builder();
    b.put("ple_exits", pleExits);
    for (Counter c : Counter.values()) {
      b.put(c.key(), counts[c.ordinal()]);
    }
    return b.buildOrThrow();
  }

  /** Sum over VMs. */
  public YieldStats plus(YieldStats o) {
    long[] sum = counts.clone();
    for (int i = 0; i < sum.length; i++) {
      sum[i] += o.counts[i];
    }
    return new YieldStats(pleExits + o.pleExits, sum);
  }

  public static YieldStats empty() {
    return new YieldStats(0, new long[Counter.values().length]);
  }
}

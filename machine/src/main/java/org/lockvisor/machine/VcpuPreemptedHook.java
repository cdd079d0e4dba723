package org.lockvisor.machine;


/**
 * What the hypervisor tells a guest's {@code vcpu_is_preempted(cpu)} about one vCPU. The arch
 * profile chooses the semantics; the answer is computed from the true state of the vCPU thread.
 */
@FunctionalInterface
public interface VcpuPreemptedHook {

  boolean isPreempted(VcpuTask vcpu);

  /** No hook (kernels before 4.9, arm64 without PV support): always false. */
  VcpuPreemptedHook NEVER = v -> false;

  /**
   * Modern x86 steal-time flag: set when the vCPU thread was preempted while runnable (not on a
   * voluntary sleep such as a halt), cleared when it runs again.
   */
  VcpuPreemptedHook INVOLUNTARY = v -> v.hostState() == VcpuTask.HostState.PREEMPTED;

  /**
   * 2016 x86 steal-time flag: set on every vcpu_put, i.e. whenever the thread is off CPU (preempted
   * or halted) or has returned to the userspace VMM for an exit. Halt polling happens with the
   * vCPU still loaded (no vcpu_put), so a thread polling on its CPU is not flagged.
   */
  VcpuPreemptedHook ANY_PUT = v -> switch (v.hostState()) {
    case PREEMPTED, IN_USERSPACE -> true;
    case HALTED -> !v.onCpu();
    default -> false;
  };

  /**
   * PowerVM lppaca yield_count odd / s390: the virtual processor is not dispatched, i.e. its
   * thread is not on a physical CPU (a thread halt-polling on its CPU is dispatched).
   */
  VcpuPreemptedHook NOT_DISPATCHED = v -> switch (v.hostState()) {
    case PREEMPTED -> true;
    case HALTED -> !v.onCpu();
    default -> false;
  };
}

package org.lockvisor.arch.spi;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkNotNull;

/**
 * What the hypervisor does that the guest's locks and devices can see: whether and how a guest can
 * tell that a vCPU is preempted, whether spinning traps, how idle vCPUs and device notifies are
 * handled, and how often the host and guest tick.
 *
 * <p>Durations that carry a source live in the {@link CostTable} ({@link CostKey#PLE_WINDOW},
 * {@link CostKey#HALT_POLL}); this record holds the switches and semantics, so each number has one
 * home and one source.
 *
 * @param vcpuPreempted what {@code vcpu_is_preempted(cpu)} answers (KERNEL-MODEL 2.4, 5)
 * @param spinTrap pause-loop exiting or WFE trapping and directed yield (KERNEL-MODEL 6)
 * @param stealTime whether the guest is told its steal time (x86 MSR_KVM_STEAL_TIME, lppaca DTL, ...)
 * @param notifyPath how a virtqueue notify reaches the device (KERNEL-MODEL 8.3)
 * @param guestIpiExits whether a guest IPI send exits to the hypervisor
 * @param postedInterrupts whether interrupts reach a running vCPU without forcing an exit
 * @param hostHz host scheduler tick rate; 0 for a partition hypervisor without a tick (see
 *     {@code dispatchWindowNs})
 * @param guestHz default guest kernel tick rate (CONFIG_HZ)
 * @param dispatchWindowNs partition dispatch window of a PowerVM-style hypervisor; 0 when the host
 *     is a general-purpose OS scheduler (KVM on Linux)
 * @param entitlement guaranteed physical processor share per vCPU per dispatch window, in (0, 1];
 *     1 when there is no dispatch window
 */
public record HypervisorBehaviour(
    VcpuPreemptedSemantics vcpuPreempted,
    SpinTrap spinTrap,
    boolean stealTime,
    NotifyPath notifyPath,
    boolean guestIpiExits,
    boolean postedInterrupts,
    int hostHz,
    int guestHz,
    long dispatchWindowNs,
    double entitlement) {

  /** Highest tick rate accepted; Linux offers at most 1000 on mainstream configs. */
  public static final int MAX_HZ = 10_000;

  /** What {@code vcpu_is_preempted(cpu)} answers in the guest, from the true vCPU thread state. */
  public enum VcpuPreemptedSemantics {
    /** Always false: arm64 mainline, and kernels without the hook (before 4.10). */
    NONE,
    /**
     * x86 KVM as merged in 2016 (0b9f6c4615c9): steal_time.preempted is written on every
     * vcpu_put, so it means "not in guest mode" and is also true during halts and exits to
     * userspace.
     */
    X86_STEAL_TIME_ANY_PUT,
    /**
     * x86 KVM after 54aa83c90198 and the 2024 narrowing: true only while the vCPU thread is
     * descheduled while runnable (involuntary preemption).
     */
    X86_STEAL_TIME_INVOLUNTARY,
    /** powerpc pseries: lppaca yield_count is odd while the vCPU is not dispatched (ceded or preempted). */
    PPC_YIELD_COUNT,
    /**
     * s390 arch_vcpu_is_preempted: false while the CPU is in enabled wait (idle) or SIGP SENSE
     * RUNNING says it runs; true otherwise.
     */
    S390,
    /**
     * arm64 paravirtual scheduling (Zengruan Ye, "KVM: arm64: Support the vCPU preemption check",
     * posted 2019-2020, carried by openEuler/EulerOS 4.19 and 5.10 kernels; mainline arm64's
     * vcpu_is_preempted stays false): the guest registers a per-vCPU shared area with an SMCCC
     * call (PV_SCHED_IPA_INIT); the host writes preempted=1 in kvm_arch_vcpu_put and 0 in
     * kvm_arch_vcpu_load (arch/arm64/kvm/pvsched.c kvm_update_pvsched_preempted), so, like x86's
     * 2016 flag, it means "not loaded": preempted, halted off CPU, or out in the userspace VMM.
     */
    ARM64_PV_SCHED
  }

  /** How a virtqueue notify reaches the device model. */
  public enum NotifyPath {
    /** PIO/MMIO exit handled in the host kernel: ioeventfd signals the VMM's I/O thread, the vCPU re-enters. */
    IOEVENTFD_IN_KERNEL,
    /**
     * Exit to the userspace VMM in the vCPU thread, which takes the VMM's global lock (QEMU BQL) and
     * processes the queue synchronously before re-entering (arm64 before MMIO ioeventfd).
     */
    USERSPACE_VMM_UNDER_GLOBAL_LOCK,
    /**
     * PowerVM virtual I/O: the notify is an hcall (H_SEND_CRQ, H_SEND_LOGICAL_LAN) that queues work
     * for the I/O server partition (VIOS); the vCPU resumes and the request is served asynchronously.
     */
    HCALL_TO_IO_SERVER;

    /** True when the vCPU stays out of the guest until the device model has processed the queue. */
    public boolean synchronousInVcpu() {
      return this == USERSPACE_VMM_UNDER_GLOBAL_LOCK;
    }
  }

  /**
   * Trapping of spinning vCPUs and the directed yield behind it. The window before a trap fires is
   * {@link CostKey#PLE_WINDOW}.
   *
   * @param enabled whether spinning traps at all
   * @param trigger what traps
   * @param gapCycles x86 ple_gap: largest PAUSE-to-PAUSE gap still counted as one spin loop; 0
   *     where not applicable
   * @param growFactor dynamic window growth per trap (x86 ple_window_grow); 1 = fixed window
   * @param directedYield whether the trap handler runs kvm_vcpu_on_spin (yield to a preempted vCPU)
   */
  public record SpinTrap(boolean enabled, Trigger trigger, int gapCycles, int growFactor, boolean directedYield) {

    /** What kind of spinning traps. */
    public enum Trigger {
      /** Intel PLE / AMD pause filter: any tight PAUSE loop (spinlocks, OSQ, owner spinning). */
      PAUSE_LOOP,
      /**
       * ARM HCR_EL2.TWE: only a WFE that would wait traps, i.e. spinlock waits; loops built on
       * cpu_relax() (the yield hint: osq_lock, mutex_spin_on_owner) do not trap.
       */
      WFE
    }

    /** No spin trapping (PowerVM, s390: guests yield explicitly with H_CONFER or DIAG 0x9c). */
    public static final SpinTrap NONE = new SpinTrap(false, Trigger.PAUSE_LOOP, 0, 1, false);

    public SpinTrap {
      checkNotNull(trigger, "spin trap needs a trigger");
      checkArgument(gapCycles >= 0, "gapCycles must not be negative: [%s]", gapCycles);
      checkArgument(growFactor >= 1, "growFactor must be at least 1: [%s]", growFactor);
      checkArgument(enabled || !directedYield, "directedYield needs an enabled spin trap");
    }
  }

  public HypervisorBehaviour {
    checkNotNull(vcpuPreempted, "vcpuPreempted semantics required");
    checkNotNull(spinTrap, "spinTrap required");
    checkNotNull(notifyPath, "notifyPath required");
    checkArgument(hostHz >= 0 && hostHz <= MAX_HZ, "hostHz must be in [0, %s]: [%s]", MAX_HZ, hostHz);
    checkArgument(guestHz > 0 && guestHz <= MAX_HZ, "guestHz must be in [1, %s]: [%s]", MAX_HZ, guestHz);
    checkArgument(dispatchWindowNs >= 0, "dispatchWindowNs must not be negative: [%s]", dispatchWindowNs);
    checkArgument(hostHz > 0 || dispatchWindowNs > 0,
        "hostHz 0 means a partition hypervisor without a tick; it needs a dispatchWindowNs");
    checkArgument(entitlement > 0 && entitlement <= 1, "entitlement must be in (0, 1]: [%s]", entitlement);
    checkArgument(entitlement == 1 || dispatchWindowNs > 0,
        "entitlement [%s] below 1 needs a dispatch window (a PowerVM-style hypervisor)", entitlement);
    // The x86 preempted byte lives in the steal-time page; without steal time the guest has no flag.
    checkArgument(stealTime
            || (vcpuPreempted != VcpuPreemptedSemantics.X86_STEAL_TIME_ANY_PUT
                && vcpuPreempted != VcpuPreemptedSemantics.X86_STEAL_TIME_INVOLUNTARY),
        "vcpuPreempted [%s] reads the steal-time page; it needs stealTime", vcpuPreempted);
  }

  /** Host tick period in ns, or 0 when the host has no tick. */
  public long hostTickNs() {
    return hostHz == 0 ? 0 : 1_000_000_000L / hostHz;
  }

  /** Guest tick period in ns. */
  public long guestTickNs() {
    return 1_000_000_000L / guestHz;
  }

  public Builder toBuilder() {
    return new Builder(this);
  }

  /** Derives a behaviour field by field; starts from an existing one. */
  public static final class Builder {
    private VcpuPreemptedSemantics vcpuPreempted;
    private SpinTrap spinTrap;
    private boolean stealTime;
    private NotifyPath notifyPath;
    private boolean guestIpiExits;
    private boolean postedInterrupts;
    private int hostHz;
    private int guestHz;
    private long dispatchWindowNs;
    private double entitlement;

    private Builder(HypervisorBehaviour b) {
      vcpuPreempted = b.vcpuPreempted;
      spinTrap = b.spinTrap;
      stealTime = b.stealTime;
      notifyPath = b.notifyPath;
      guestIpiExits = b.guestIpiExits;
      postedInterrupts = b.postedInterrupts;
      hostHz = b.hostHz;
      guestHz = b.guestHz;
      dispatchWindowNs = b.dispatchWindowNs;
      entitlement = b.entitlement;
    }

    public Builder vcpuPreempted(VcpuPreemptedSemantics v) { vcpuPreempted = v; return this; }
    public Builder spinTrap(SpinTrap v) { spinTrap = v; return this; }
    public Builder stealTime(boolean v) { stealTime = v; return this; }
    public Builder notifyPath(NotifyPath v) { notifyPath = v; return this; }
    public Builder guestIpiExits(boolean v) { guestIpiExits = v; return this; }
    public Builder postedInterrupts(boolean v) { postedInterrupts = v; return this; }
    public Builder hostHz(int v) { hostHz = v; return this; }
    public Builder guestHz(int v) { guestHz = v; return this; }
    public Builder dispatchWindowNs(long v) { dispatchWindowNs = v; return this; }
    public Builder entitlement(double v) { entitlement = v; return this; }

    public HypervisorBehaviour build() {
      return new HypervisorBehaviour(vcpuPreempted, spinTrap, stealTime, notifyPath, guestIpiExits,
          postedInterrupts, hostHz, guestHz, dispatchWindowNs, entitlement);
    }
  }
}

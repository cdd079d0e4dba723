package org.lockvisor.machine.config;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.collect.ImmutableSet;

/**
 * Pause-loop exiting (Intel PLE, AMD pause filter) or WFE trapping (arm64 HCR_EL2.TWE), and the
 * directed yield of its handler, {@code kvm_vcpu_on_spin}.
 *
 * <p>A guest task that spins for {@code windowNs} of guest-mode time without leaving the loop
 * traps: its vCPU exits with {@code exitReason} and the host runs {@code kvm_vcpu_on_spin}: it
 * scans the VM's vCPUs ({@code scanPerVcpuNs} each: a read of a flag other CPUs write) and, when
 * {@code directedYield} is on, yields to the next vCPU (round robin from the last boosted one)
 * whose thread was preempted while runnable, through the host scheduler's {@code yield_to}
 * ({@code yieldNs}: runqueue locks, buddy, resched IPI; paid only when it boosts one). The guest then re-enters and resumes its spin with a
 * fresh window. With {@code growFactor} > 1 (Linux 3.18+, b4a2d31da812 "KVM: VMX: dynamise PLE
 * window") each trap multiplies the vCPU's window by it up to {@code maxWindowNs}, and the window
 * returns to {@code windowNs} whenever the vCPU thread is scheduled in (ple_window_shrink 0).
 * The handler's candidate filters ({@code dy_eligible} alternation, {@code in_spin_loop} over the
 * handler's whole duration, the 4.14 skip of candidates preempted in guest user mode) are the
 * {@link DirectedYield} variant's. Left out: the PAUSE gap (a simulated spin is one tight loop).
 *
 * @param windowNs guest spin time before a trap (ple_window in ns); 0 disables trapping
 * @param exitReason the exit reason as {@code perf kvm stat} names it (PAUSE_INSTRUCTION, WFx)
 * @param scanPerVcpuNs candidate scan cost per vCPU of the VM
 * @param yieldNs cost of the yield_to path when a candidate is boosted
 * @param directedYield whether the handler yields to a preempted sibling vCPU
 * @param growFactor ple_window_grow: 1 keeps the window fixed (before 3.18)
 * @param maxWindowNs ple_window_max, in ns
 * @param untrappedSymbols spin symbols whose loops never trap (arm64: {@code cpu_relax()} loops
 *     such as osq_lock or mutex_spin_on_owner execute YIELD, not WFE); empty for PAUSE loops,
 *     where every spin traps
 */
public record SpinTrapConfig(
    long windowNs, String exitReason, long scanPerVcpuNs, long yieldNs, boolean directedYield, int growFactor,
    long maxWindowNs,
    ImmutableSet<String> untrappedSymbols) {

  /** No trapping (PowerVM and s390 guests yield explicitly; or PLE disabled). */
  public static final SpinTrapConfig OFF = new SpinTrapConfig(0, "PAUSE_INSTRUCTION", 0, 0, false, 1, 0, ImmutableSet.of());

  /** Loops that use cpu_relax() (YIELD on arm64) in the 3.x–4.x kernels: they do not trap on WFE. */
  public static final ImmutableSet<String> CPU_RELAX_LOOPS = ImmutableSet.of(
      "osq_lock", "osq_unlock", "mutex_spin_on_owner", "mutex_optimistic_spin", "rwsem_spin_on_owner");

  public SpinTrapConfig {
    checkArgument(windowNs >= 0, "spin trap window must not be negative: [%s]", windowNs);
    checkArgument(scanPerVcpuNs >= 0 && yieldNs >= 0, "spin trap handler costs must not be negative");
    checkArgument(growFactor >= 1, "spin trap growFactor must be at least 1: [%s]", growFactor);
    checkArgument(maxWindowNs >= windowNs, "spin trap max window [%s] below the window [%s]", maxWindowNs, windowNs);
    checkArgument(exitReason != null && !exitReason.isBlank(), "spin trap needs an exit reason");
    untrappedSymbols = ImmutableSet.copyOf(untrappedSymbols);
  }

  /** A fixed-window trap without growth (pre-3.18 KVM, arm64 WFE). */
  public static SpinTrapConfig fixed(long windowNs, String exitReason, long scanPerVcpuNs, long yieldNs,
      boolean directedYield, ImmutableSet<String> untrappedSymbols) {
    return new SpinTrapConfig(windowNs, exitReason, scanPerVcpuNs, yieldNs, directedYield, 1, windowNs,
        untrappedSymbols);
  }

  /** grow_ple_window: multiply below the maximum, never beyond it. */
  public long grow(long current) {
    if (growFactor <= 1) {
      return windowNs;
    }
    return current > maxWindowNs / growFactor ? maxWindowNs : Math.max(windowNs, current * growFactor);
  }

  public boolean enabled() {
    return windowNs > 0;
  }
}

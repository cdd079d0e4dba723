package org.lockvisor.machine;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A vCPU thread: a host task whose guest mode <em>is</em> a guest CPU. While it is current on a
 * physical CPU that runs and it is in guest mode, its guest CPU runs; otherwise the guest CPU is
 * frozen. A guest VM exit leaves guest mode, runs a host handler program on this thread (which
 * can itself be preempted, take locks, spin), then re-enters.
 *
 * <p>Its program is an endless KVM_RUN loop: enter guest mode; on an exit, run the handler;
 * re-enter. A halt (HLT/WFI exit) polls for {@code haltPollNs}, then sleeps until an interrupt
 * for the guest CPU kicks it (kvm_vcpu_block / kvm_vcpu_kick).
 */
public final class VcpuTask extends Task {

  /** The vCPU thread's state as KVM sees it. */
  public enum HostState { IN_GUEST, IN_HOST_KERNEL, IN_USERSPACE, HALTED, PREEMPTED }

  final Cpu guestCpu;
  final Vm vm;
  private Program pendingExit;
  private String pendingReason;
  private long exitStart;
  private String currentReason;
  boolean halted;
  boolean inUserspace;
  /** KVM's pv_unhalted: a PV kick arrived; the next (or current) halt returns at once. */
  boolean pvUnhalted;
  private final Map<String, ExitStats> exits = new LinkedHashMap<>();
  private String lastExitReason;
  private ExitStats lastExitStats;
  /** sched_info run_delay: time runnable on a host runqueue but not running (KVM's steal time). */
  private long runDelayNs;
  private long waitingSince = -1;
  /** This vCPU's current PLE window (0: the configured base window). */
  long spinTrapWindowNs;
  /** kvm_vcpu.spin_loop.in_spin_loop: inside its own PLE handler. */
  boolean inSpinLoop;
  /** kvm_vcpu.spin_loop.dy_eligible. */
  boolean dyEligible;
  /** vcpu->preempted (3.10+): set by kvm_sched_out while the thread is runnable, cleared at sched_in. */
  boolean kvmPreempted;
  /**
   * vcpu->ready (d73eb57b80b9): set with preempted by kvm_sched_out and by kvm_vcpu_wake_up when it
   * wakes the thread from kvm_vcpu_block, cleared at kvm_sched_in.
   */
  boolean kvmReady;
  /**
   * vcpu->arch.preempted_in_kernel (4.14+, x86 kvm_arch_vcpu_put: {@code !get_cpl(vcpu)}): the
   * guest was not running user code when the thread was last scheduled out.
   */
  boolean kvmPreemptedInKernel = true;
  private boolean kickYieldPending;
  private final int guestStack;

  VcpuTask(Machine machine, Kernel host, int id, String name, Vm vm, Cpu guestCpu) {
    super(machine, host, id, name, null);
    this.vm = vm;
    this.guestCpu = guestCpu;
    this.guestStack = machine.symbols().push(
        machine.symbols().push(currentStack(), machine.symbols().symbol("kvm_arch_vcpu_ioctl_run", Machine.DOMAIN_KERNEL)),
        machine.symbols().symbol("[guest]", Machine.DOMAIN_GUEST));
    pushFrame(Program.named("kvm_vcpu_ioctl").op(new RunGuest()).build());
  }

  public Cpu guestCpu() {
    return guestCpu;
  }

  /** The guest's privilege level now: kernel unless its CPU's task is doing user work (CPL 3). */
  boolean guestInKernel() {
    Task cur = guestCpu.current;
    return cur == null || cur == guestCpu.idle || cur.irqDepth > 0 || cur.activity != Activity.WORK
        || !cur.workUser;
  }

  public Vm vm() {
    return vm;
  }

  /** The true state of this vCPU thread. */
  public HostState hostState() {
    if (!onCpu()) {
      return halted || state != TaskState.RUNNING ? HostState.HALTED : HostState.PREEMPTED;
    }
    if (activity == Activity.GUEST) {
      return HostState.IN_GUEST;
    }
    if (halted) {
      return HostState.HALTED;
    }
    return inUserspace ? HostState.IN_USERSPACE : HostState.IN_HOST_KERNEL;
  }

  /**
   * Steal time so far: how long this thread has been runnable but not running on the host
   * (sched_info {@code run_delay}, which KVM publishes to the guest as steal time).
   */
  public long stealNs() {
    return runDelayNs + (waitingSince >= 0 ? machine.sim().now() - waitingSince : 0);
  }

  /** The thread became runnable off CPU (woken, or preempted while runnable). */
  void startWaiting(long now) {
    if (waitingSince < 0) {
      waitingSince = now;
    }
  }

  /** The thread was switched in. */
  void stopWaiting(long now) {
    spinTrapWindowNs = vm.shrinkPleWindow(spinTrapWindowNs); // vmx_sched_in -> shrink_ple_window
    if (waitingSince >= 0) {
      runDelayNs += now - waitingSince;
      waitingSince = -1;
    }
  }

  /** Exit statistics per reason, in first-seen order. */
  public Map<String, ExitStats> exitStats() {
    return java.util.Collections.unmodifiableMap(exits);
  }

  /** Called by a guest op on {@link #guestCpu}: leave guest mode and run {@code handler}. */
  void requestExit(String reason, Program handler) {
    pendingExit = handler;
    pendingReason = machine.kernelSymbols().exitName(reason); // the architecture's perf kvm stat name
    exitStart = machine.sim().now();
    cpu.flushAccounting();
    activity = Activity.NONE;
    guestCpu.setPowered(false);
    cpu.chargeNothing();
    cpu.resumeSoon();
  }

  /**
   * kvm_arch_vcpu_runnable for a halted vCPU: a PV kick (pv_unhalted), an interrupt the guest
   * accepts (HLT with interrupts disabled, as in pv_wait from spin_lock_irqsave, is woken only by
   * a kick), or a reschedule of an idle guest CPU. A guest's own need_resched is invisible to the
   * host, so it does not end a halt of a busy guest CPU.
   */
  boolean haltWakeable() {
    Cpu g = guestCpu;
    Task cur = g.current;
    return pvUnhalted
        || (g.hasPendingInterrupts() && !cur.irqsDisabled)
        || (g.needResched && cur == g.idle);
  }

  /** An interrupt or need_resched for the guest CPU: wake the thread if it is halted. */
  void kick() {
    if (!halted || !haltWakeable()) {
      return;
    }
    if (activity == Activity.SPIN) {
      poke(0); // halt polling sees the pending interrupt
    } else if (state != TaskState.RUNNING) {
      // kvm_vcpu_wake_up: swake_up_one, then WRITE_ONCE(vcpu->ready, true); set first here so a
      // wakee switched in at once clears it at sched_in (the kernel's window where a late store
      // leaves ready stuck true on a running vCPU is not modelled)
      kvmReady = true;
      kernel.wakeUpNow(this, null);
    }
  }

  /**
   * kvm_pv_kick_cpu_op (KVM_HC_KICK_CPU): sets pv_unhalted and wakes the thread if it is halted.
   * A kick that arrives before the halt makes that halt return at once (no lost kick).
   */
  public void pvKick() {
    vm.count(YieldStats.Counter.PV_KICKS);
    pvUnhalted = true;
    kick();
  }

  /**
   * The x86 KVM_HC_KICK_CPU handler after {@link #pvKick} of {@code target} (called on the
   * kicker): {@code kvm_sched_yield(vcpu->kvm, a1)} when the VM's hypervisor has the queue-head
   * boost ({@link org.lockvisor.machine.config.HypervisorConfig#kickYield}, 266e85a5ec91): if the kicked vCPU is {@code ready}
   * (woken by the kick, or preempted, and not run since), {@code kvm_vcpu_yield_to} it. Returns
   * whether {@code yield_to} boosted it; the handler then calls {@code schedule()} as {@code
   * yield_to} does.
   */
  public boolean kickYield(VcpuTask target) {
    if (!vm.kickYield() || target == null || target.vm != vm || target == this) {
      return false;
    }
    if (!target.kvmReady) {
      vm.count(YieldStats.Counter.KICK_YIELD_NOT_READY);
      return false;
    }
    vm.count(YieldStats.Counter.KICK_YIELD_ATTEMPTS);
    if (kernel.yieldTo(this, target) > 0) {
      vm.count(YieldStats.Counter.KICK_YIELD_SUCCESSES);
      kickYieldPending = true;
      return true;
    }
    return false;
  }

  /** Whether {@link #kickYield} boosted a target whose schedule() is still due; clears it. */
  public boolean takeKickYield() {
    boolean pending = kickYieldPending;
    kickYieldPending = false;
    return pending;
  }

  /** Marks the part of an exit handler spent in the userspace VMM (vcpu_put happened). */
  void setInUserspace(boolean on) {
    inUserspace = on;
  }

  @Override
  boolean arm() {
    if (activity == Activity.GUEST) {
      guestCpu.setPowered(true);
      return false;
    }
    return super.arm();
  }

  @Override
  void freeze() {
    if (activity == Activity.GUEST) {
      guestCpu.setPowered(false);
      return;
    }
    super.freeze();
  }

  @Override
  int chargeStack() {
    return activity == Activity.GUEST ? guestStack : super.chargeStack();
  }

  @Override
  boolean preemptibleNow() {
    if (activity == Activity.GUEST) {
      return true; // the host timer interrupt preempts guest mode at any time
    }
    return super.preemptibleNow();
  }

  /** The KVM_RUN loop: never finishes. */
  private final class RunGuest extends Op {
    @Override
    public int execute(Task t, int phase) {
      if (currentReason != null) {
        recordExit(currentReason, machine.sim().now() - exitStart);
        currentReason = null;
      }
      if (pendingExit != null) {
        Program h = pendingExit;
        currentReason = pendingReason;
        pendingExit = null;
        pendingReason = null;
        call(h);
        if (vm.exitOverhead() != null) {
          call(vm.exitOverhead());
        }
        return AGAIN;
      }
      activity = Activity.GUEST;
      cpu.armCurrent();
      return AGAIN;
    }
  }

  private void recordExit(String reason, long ns) {
    // the last reason's entry is kept: most exits repeat it, and a map lookup hashes the string
    if (reason != lastExitReason) {
      lastExitStats = exits.computeIfAbsent(reason, r -> new ExitStats());
      lastExitReason = reason;
    }
    lastExitStats.record(ns);
    if (MachineTrace.HOOKS) {
      machine.trace().onExit(this, reason, exitStart, ns);
    }
  }

  /** Count and duration of one exit reason. */
  public static final class ExitStats {
    private long count;
    private long totalNs;
    private long minNs = Long.MAX_VALUE;
    private long maxNs;
    private double sumSquaresNs;

    void record(long ns) {
      count++;
      totalNs += ns;
      sumSquaresNs += (double) ns * ns;
      minNs = Math.min(minNs, ns);
      maxNs = Math.max(maxNs, ns);
    }

    public long count() {
      return count;
    }

    public long totalNs() {
      return totalNs;
    }

    public long minNs() {
      return count == 0 ? 0 : minNs;
    }

    public long maxNs() {
      return maxNs;
    }

    /** Sample standard deviation of the exit durations (0 below two samples). */
    public double stddevNs() {
      if (count < 2) {
        return 0;
      }
      double mean = (double) totalNs / count;
      return Math.sqrt(Math.max(0, (sumSquaresNs - count * mean * mean) / (count - 1)));
    }

    public void reset() {
      count = 0;
      totalNs = 0;
      minNs = Long.MAX_VALUE;
      maxNs = 0;
      sumSquaresNs = 0;
    }
  }
}

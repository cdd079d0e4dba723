package org.lockvisor.machine;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import java.util.ArrayList;
import java.util.List;
import org.lockvisor.machine.config.DirectedYield;
import org.lockvisor.machine.config.HypervisorConfig;
import org.lockvisor.machine.config.KernelConfig;
import org.lockvisor.machine.config.SpinTrapConfig;

/**
 * A virtual machine: a guest kernel whose CPUs are run by vCPU threads of the host kernel, and
 * the hypervisor paths common to its exits (the hardware exit/entry round trip, the halt path).
 */
public final class Vm {
  final String name;
  final Kernel guest;
  final List<VcpuTask> vcpus = new ArrayList<>();
  private final Program exitOverhead;
  private final Program haltHandler;
  private final long haltPollNs;
  private final Machine machine;
  private final SpinTrapConfig spinTrap;
  private final Program spinTrapHandler;
  /** Per symbol id: 0 not classified yet, 1 its spins trap, 2 they do not. */
  private byte[] trapsBySymbol = new byte[64];
  private int lastBoostedVcpu = -1;
  private long spinTraps;
  private long directedYields;
  /** vCPUs of this VM inside kvm_vcpu_on_spin (in_spin_loop set). */
  private int inSpinLoops;
  private final boolean partitionFirmware;
  private final DirectedYield directedYield;
  private final int pleShrink;
  private final boolean kickYield;
  /** Counters of kvm_vcpu_on_spin, H_CONFER/H_PROD and pv halts/kicks (see {@link YieldStats}). */
  final long[] yieldCounts = new long[YieldStats.Counter.values().length];

  Vm(Machine machine, String name, KernelConfig guestConfig, Scheduler guestScheduler, HypervisorConfig hv) {
    this.name = name;
    this.guest = new Kernel(machine, name, guestConfig, guestScheduler, this);
    this.haltPollNs = hv.haltPollNs();
    this.machine = machine;
    this.spinTrap = hv.spinTrap();
    this.directedYield = !hv.spinTrap().directedYield() ? DirectedYield.NONE : hv.directedYield();
    this.pleShrink = hv.pleShrink();
    this.kickYield = hv.kickYield();
    this.spinTrapHandler = Program.named("kvm_vcpu_on_spin")
        .op(new DirectedYieldOp(machine.symbols().symbol("kvm_vcpu_on_spin", Machine.DOMAIN_KERNEL),
            machine.symbols().symbol("yield_to", Machine.DOMAIN_KERNEL)))
        .build();
    this.partitionFirmware = hv.partitionFirmware();
    if (partitionFirmware) {
      // PHYP: the guest's hcalls (H_CEDE for idle) run in the hypervisor, not in a host kernel
      this.exitOverhead = hv.exitRoundtripNs() > 0
          ? Program.named("hcall").op(hypervisorWork(machine, hv.exitRoundtripNs(), "hcall")).build()
          : null;
      this.haltHandler = Program.named("H_CEDE")
          .op(hypervisorWork(machine, hv.exitHltNs(), "H_CEDE"))
          .op(new HaltOp(machine.symbols().symbol("H_CEDE", Machine.DOMAIN_HYPERVISOR)))
          .build();
      return;
    }
    var names = machine.kernelSymbols(); // the architecture's guest entry and halt handler (arch profile)
    this.exitOverhead = hv.exitRoundtripNs() > 0
        ? Program.named(names.guestEntry()).work(hv.exitRoundtripNs(), names.guestEntryWork()).build()
        : null;
    int pollSym = machine.symbols().symbol("kvm_vcpu_block", Machine.DOMAIN_KERNEL);
    this.haltHandler = Program.named(names.haltHandler())
        .work(hv.exitHltNs(), names.haltWork())
        .op(new HaltOp(pollSym))
        .build();
  }

  /** Whether KVM_HC_KICK_CPU yields to the kicked vCPU (kvm_sched_yield, 266e85a5ec91). */
  public boolean kickYield() {
    return kickYield;
  }

  /** Whether the hypervisor is partition firmware (PowerVM) rather than KVM. */
  public boolean partitionFirmware() {
    return partitionFirmware;
  }

  /**
   * A guest code path that makes the hypervisor call {@code name}: a VM exit whose host side is
   * {@code ns} of hypervisor work charged to the hypervisor-domain symbol {@code name} (plus the
   * exit round trip).
   */
  public Program hypervisorCall(String name, long ns) {
    Machine machine = guest.machine();
    Program hostSide = Program.named(name).op(hypervisorWork(machine, ns, name)).build();
    return Program.named("plpar_hcall_norets").op(Ops.vmExit(name, hostSide)).build();
  }

  /** {@code ns} of hypervisor work charged to the hypervisor-domain symbol {@code symbol}. */
  static Op hypervisorWork(Machine machine, long ns, String symbol) {
    int sym = machine.symbols().symbol(symbol, Machine.DOMAIN_HYPERVISOR);
    return new Op() {
      @Override
      public int execute(Task t, int phase) {
        if (phase == 0 && ns > 0) {
          t.startWork(ns, sym, false);
          return AGAIN;
        }
        return NEXT;
      }

      @Override
      public String toString() {
        return "hypervisor(" + symbol + ")";
      }
    };
  }

  public String name() {
    return name;
  }

  public Kernel guest() {
    return guest;
  }

  public List<VcpuTask> vcpus() {
    return ImmutableList.copyOf(vcpus);
  }

  Program exitOverhead() {
    return exitOverhead;
  }

  /**
   * The host path of a HLT exit (kvm_emulate_halt: halt polling, then kvm_vcpu_block); guest
   * code that halts on purpose, such as pv_wait, exits with it.
   */
  public Program haltHandler() {
    return haltHandler;
  }

  /** The spin-trap and directed-yield configuration of this VM. */
  public SpinTrapConfig spinTrap() {
    return spinTrap;
  }

  /** Pause-loop / WFE exits taken so far. */
  public long spinTraps() {
    return spinTraps;
  }

  /** kvm_vcpu_on_spin calls that yielded to a preempted sibling vCPU. */
  public long directedYields() {
    return directedYields;
  }

  /** The kvm_vcpu_on_spin variant this VM's hypervisor runs. */
  public DirectedYield directedYieldVariant() {
    return directedYield;
  }

  /** The hypervisor calls {@link #hcalls()} counts, in output order. */
  public static final List<String> HCALLS = List.of("H_CEDE", "H_PROD", "H_CONFER", "H_IPI", "H_XIRR", "H_EOI");

  /** The exit reason of an idle or pv halt: {@code H_CEDE} under partition firmware, else HLT. */
  public String haltExitReason() {
    return partitionFirmware ? "H_CEDE" : "HLT";
  }

  /**
   * PowerVM hypervisor calls made by this VM's vCPUs since the last reset, by name ({@link
   * #HCALLS}): each is a VM exit of that reason (H_CEDE from the idle loop and pv halts, H_CONFER
   * from {@code __spin_yield}/{@code __rw_yield}, H_IPI from {@code smp_muxed_ipi_message_pass},
   * H_XIRR and H_EOI from the XICS interrupt accept), and H_PROD from {@link #prod}. All zero on
   * KVM.
   */
  public ImmutableMap<String, Long> hcalls() {
    ImmutableMap.Builder<String, Long> b = ImmutableMap.builder();
    for (String h : HCALLS) {
      long n = 0;
      if (h.equals("H_PROD")) {
        n = partitionFirmware ? yieldCounts[YieldStats.Counter.PRODS.ordinal()] : 0;
      } else if (partitionFirmware) {
        for (VcpuTask v : vcpus) {
          VcpuTask.ExitStats e = v.exitStats().get(h);
          n += e == null ? 0 : e.count();
        }
      }
      b.put(h, n);
    }
    return b.buildOrThrow();
  }

  /** Directed-yield, confer/prod and pv halt/kick counters of this VM. */
  public YieldStats yieldStats() {
    return new YieldStats(spinTraps, yieldCounts.clone());
  }

  public void resetSpinTrapStats() {
    spinTraps = 0;
    directedYields = 0;
    java.util.Arrays.fill(yieldCounts, 0);
  }

  void count(YieldStats.Counter c) {
    yieldCounts[c.ordinal()]++;
  }

  /** vmx_sched_in -> shrink_ple_window: the window a vCPU gets back when it is scheduled in. */
  long shrinkPleWindow(long current) {
    long base = spinTrap.windowNs();
    if (current <= 0 || pleShrink < 1) {
      return 0; // ple_window_shrink 0: back to the base window
    }
    long v = pleShrink < base ? current / pleShrink : current - pleShrink;
    return Math.max(base, v);
  }

  /**
   * The hypervisor side of PowerVM's {@code H_CONFER} made by the vCPU thread {@code caller} (on
   * its physical processor, in the hypervisor): with a target guest CPU, PHYP dispatches the
   * target's VP on the caller's processor if it is preempted (runnable, not dispatched); if it
   * runs already or has ceded, the call returns without effect. With {@code targetCpu < 0}
   * (confer to all) the caller's processor goes to whoever the dispatcher picks. In both cases
   * the caller then gives up its processor; the caller's op runs {@code schedule()} itself.
   * Returns whether the target was dispatched.
   */
  public boolean confer(Task caller, int targetCpu) {
    if (targetCpu < 0) {
      count(YieldStats.Counter.CONFER_ALL);
      return false;
    }
    VcpuTask target = vcpus.get(targetCpu);
    count(YieldStats.Counter.CONFER_DIRECTED);
    if (target == caller) {
      return false;
    }
    if (target.onCpu()) {
      count(YieldStats.Counter.CONFER_TARGET_RUNNING);
      return false;
    }
    if (target.state != TaskState.RUNNING || !target.onRq) {
      count(YieldStats.Counter.CONFER_TARGET_CEDED);
      return false;
    }
    // runnable, not dispatched (preempted, or prodded/woken and waiting for a processor)
    int r = caller.kernel.yieldTo(caller, target);
    if (r > 0) {
      count(YieldStats.Counter.CONFER_DISPATCHED);
      return true;
    }
    count(YieldStats.Counter.CONFER_NOT_DISPATCHED);
    return false;
  }

  /**
   * PowerVM's {@code H_PROD} for guest CPU {@code cpu}: a ceded VP becomes dispatchable (its
   * pending prod ends its H_CEDE, or the next one at once, like KVM's pv_unhalted). Returns
   * whether the VP was ceded.
   */
  public boolean prod(int cpu) {
    count(YieldStats.Counter.PRODS);
    VcpuTask v = vcpus.get(cpu);
    boolean ceded = v.halted;
    v.pvUnhalted = true;
    v.kick();
    return ceded;
  }

  /** Called when {@code t} (re)arms a spin on guest CPU {@code g}: start the hardware's window. */
  void armSpinTrap(Cpu g, Task t) {
    if (!spinTrap.enabled()) {
      return;
    }
    int symbol = machine.symbols().leaf(t.activityStack);
    if (symbol >= trapsBySymbol.length) {
      trapsBySymbol = java.util.Arrays.copyOf(trapsBySymbol, Math.max(symbol + 1, trapsBySymbol.length * 2));
    }
    byte traps = trapsBySymbol[symbol];
    if (traps == 0) {
      traps = spinTrap.untrappedSymbols().contains(machine.symbols().name(symbol)) ? (byte) 2 : (byte) 1;
      trapsBySymbol[symbol] = traps;
    }
    if (traps == 1) {
      long window = g.vcpuTask.spinTrapWindowNs;
      g.armSpinTrap(window > 0 ? window : spinTrap.windowNs());
    }
  }

  /** The window ran out while the guest still spins: the vCPU exits to kvm_vcpu_on_spin. */
  void spinTrapped(VcpuTask v) {
    spinTraps++;
    long window = v.spinTrapWindowNs > 0 ? v.spinTrapWindowNs : spinTrap.windowNs();
    v.spinTrapWindowNs = spinTrap.grow(window); // handle_pause -> grow_ple_window
    v.requestExit(spinTrap.exitReason(), spinTrapHandler);
  }

  /**
   * {@code kvm_vcpu_on_spin} (virt/kvm/kvm_main.c, the variant of {@link DirectedYield}): mark
   * self in a spin loop, scan the VM's vCPUs round robin from {@code kvm->last_boosted_vcpu} in
   * two passes, skip self, vCPUs not preempted (3.10+), halted ones ({@code waitqueue_active}),
   * ineligible ones ({@code dy_eligible} alternation, 3.7+), and ones in guest mode ({@code
   * PF_VCPU}); {@code yield_to} the first remaining one; {@code -ESRCH} answers (target running
   * in the host or not runnable) end the search after three tries (3.8+). {@code
   * kvm_vcpu_set_in_spin_loop(me, true)} comes first and {@code (me, false)} with {@code
   * dy_eligible} cleared comes last, after {@code yield_to} returns (3.8/3.10 kvm_main.c), so
   * {@code in_spin_loop} covers the scan ({@code scanPerVcpuNs} per vCPU), the yield ({@code
   * yieldNs}: {@code yield_to}'s two runqueue locks) and the {@code schedule()} that hands the CPU
   * to the boosted vCPU: a yielder stays "in its spin loop" while it waits to run again, and
   * handlers on other CPUs see it ineligible every other look. Counted: skips by reason
   * (including self) and handler entries that find another vCPU of the VM in its handler.
   */
  private final class DirectedYieldOp extends Op {
    private final int symScan;
    private final int symYield;

    DirectedYieldOp(int symScan, int symYield) {
      this.symScan = symScan;
      this.symYield = symYield;
    }

    @Override
    public int execute(Task t, int phase) {
      VcpuTask me = (VcpuTask) t;
      switch (phase) {
        case 0 -> {
          if (directedYield.enabled()) {
            // kvm_vcpu_set_in_spin_loop(me, true) before the scan: handlers that run at the same
            // time on other CPUs see this vCPU in its spin loop until the handler returns
            if (inSpinLoops > 0) {
              count(YieldStats.Counter.HANDLER_OVERLAPS);
            }
            setInSpinLoop(me, true);
          }
          long scan = spinTrap.scanPerVcpuNs() * vcpus.size();
          if (scan > 0) {
            t.startWork(scan, symScan, false);
          }
          return AGAIN;
        }
        case 1 -> {
          if (!directedYield.enabled()) {
            return NEXT;
          }
          boolean yielded = boostCandidate(me);
          if (!yielded) {
            count(YieldStats.Counter.NO_CANDIDATE);
            leave(me);
            return NEXT;
          }
          if (spinTrap.yieldNs() > 0) {
            t.startWork(spinTrap.yieldNs(), symYield, false); // yield_to: both runqueue locks, buddy
          }
          return AGAIN;
        }
        case 2 -> {
          t.kernel.schedule(t.cpu, true); // yield_to's own schedule(), still inside the handler
          return AGAIN;
        }
        default -> {
          leave(me); // yield_to returned: the vCPU runs again
          return NEXT;
        }
      }
    }

    /** kvm_vcpu_set_in_spin_loop(me, false); kvm_vcpu_set_dy_eligible(me, false). */
    private void leave(VcpuTask me) {
      setInSpinLoop(me, false);
      me.dyEligible = false;
    }

    /** The candidate loop; true when yield_to boosted one. */
    private boolean boostCandidate(VcpuTask me) {
      int n = vcpus.size();
      int last = lastBoostedVcpu;
      int tries = 3;
      boolean v32 = directedYield == DirectedYield.V3_2;
      for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; i < n; i++) {
          if (pass == 0 && (v32 ? i < last : i <= last)) {
            continue;
          } else if (pass == 1 && i > last) {
            break;
          }
          VcpuTask candidate = vcpus.get(i);
          if (directedYield == DirectedYield.V3_10 && !candidate.kvmPreempted) {
            count(YieldStats.Counter.SKIP_NOT_PREEMPTED);
            continue;
          }
          if (directedYield == DirectedYield.READY && !candidate.kvmReady) {
            count(YieldStats.Counter.SKIP_NOT_READY);
            continue;
          }
          if (candidate == me) {
            count(YieldStats.Counter.SKIP_SELF);
            continue;
          }
          if (candidate.halted && candidate.state != TaskState.RUNNING) {
            count(YieldStats.Counter.SKIP_HALTED); // waitqueue_active: asleep in kvm_vcpu_block
            continue;
          }
          if (directedYield.kernelModeFilter() && candidate.kvmPreempted && !candidate.kvmPreemptedInKernel) {
            // yield_to_kernel_mode (a PLE exit is always from CPL 0) && !kvm_arch_vcpu_in_kernel
            count(YieldStats.Counter.SKIP_USER_MODE);
            continue;
          }
          if (!v32 && !eligible(candidate)) {
            count(YieldStats.Counter.SKIP_INELIGIBLE);
            continue;
          }
          int yielded = yieldTo(me, candidate);
          if (yielded > 0) {
            lastBoostedVcpu = i;
            directedYields++;
            return true;
          }
          if (yielded < 0 && !v32 && --tries == 0) {
            return false;
          }
        }
      }
      return false;
    }

    private boolean eligible(VcpuTask v) {
      return eligibleForDirectedYield(v);
    }

    /** kvm_vcpu_yield_to then yield_to(task, 1): 1 boosted, 0 not, -1 -ESRCH. */
    private int yieldTo(VcpuTask me, VcpuTask target) {
      count(YieldStats.Counter.ATTEMPTS);
      if (target.onCpu() && target.activity == Activity.GUEST) {
        count(YieldStats.Counter.FAIL_IN_GUEST); // PF_VCPU: running in guest mode
        return 0;
      }
      if (target.onCpu()) {
        count(YieldStats.Counter.FAIL_RUNNING);
        return -1;
      }
      if (target.state != TaskState.RUNNING || !target.onRq) {
        count(YieldStats.Counter.FAIL_NOT_RUNNABLE);
        return -1;
      }
      int r = me.kernel.yieldTo(me, target);
      if (r > 0) {
        count(YieldStats.Counter.SUCCESSES);
      } else if (r == 0) {
        count(YieldStats.Counter.FAIL_NOT_BOOSTED);
      } else {
        count(YieldStats.Counter.FAIL_NOT_RUNNABLE);
      }
      return r;
    }
  }

  /**
   * kvm_vcpu_eligible_for_directed_yield (virt/kvm/kvm_main.c 3.7+): a vCPU not in its own PLE
   * handler is eligible; one inside it is eligible every other time it is checked ({@code
   * dy_eligible} toggles at each check).
   */
  static boolean eligibleForDirectedYield(VcpuTask v) {
    boolean eligible = !v.inSpinLoop || v.dyEligible;
    if (v.inSpinLoop) {
      v.dyEligible = !v.dyEligible;
    }
    return eligible;
  }

  /** Sets a vCPU's in_spin_loop and keeps the count of this VM's vCPUs inside their handler. */
  void setInSpinLoop(VcpuTask v, boolean on) {
    if (v.inSpinLoop != on) {
      inSpinLoops += on ? 1 : -1;
      v.inSpinLoop = on;
    }
  }

  /** kvm->last_boosted_vcpu (-1 before the first boost). */
  public int lastBoostedVcpu() {
    return lastBoostedVcpu;
  }

  /** kvm_vcpu_block: poll for a wakeup for halt_poll_ns, then sleep until kicked. */
  private final class HaltOp extends Op {
    private final int pollSymbol;

    HaltOp(int pollSymbol) {
      this.pollSymbol = pollSymbol;
    }

    @Override
    public int execute(Task t, int phase) {
      VcpuTask v = (VcpuTask) t;
      Cpu g = v.guestCpu;
      switch (phase) {
        case 0 -> {
          if (g.current != g.idle) {
            count(YieldStats.Counter.PV_HALTS); // a halt from a busy guest CPU: pv_wait
          }
          if (wakeable(v, g)) {
            v.pvUnhalted = false;
            return NEXT;
          }
          v.halted = true;
          if (haltPollNs > 0) {
            t.startSpin(pollSymbol, s -> wakeable(v, g), haltPollNs, null);
            return AGAIN;
          }
          return sleep(v, g);
        }
        case 1 -> {
          if (wakeable(v, g)) {
            v.halted = false;
            v.pvUnhalted = false;
            return NEXT;
          }
          return sleep(v, g);
        }
        default -> {
          if (!wakeable(v, g)) {
            return sleep(v, g); // woken for something this halt does not accept
          }
          v.halted = false;
          v.pvUnhalted = false;
          return NEXT;
        }
      }
    }

    private boolean wakeable(VcpuTask v, Cpu g) {
      return v.haltWakeable();
    }

    private int sleep(VcpuTask v, Cpu g) {
      // kvm_vcpu_check_block before schedule(): a kick already there ends the halt without
      // giving up the CPU
      if (wakeable(v, g)) {
        v.halted = false;
        v.pvUnhalted = false;
        return NEXT;
      }
      v.halted = true;
      v.state = TaskState.INTERRUPTIBLE;
      v.kernel.schedule(v.cpu, false);
      return AGAIN;
    }
  }
}

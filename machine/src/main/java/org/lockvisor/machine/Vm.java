package org.lockvisor.machine;

import com.google.common.collect.ImmutableList;
import java.util.ArrayList;
import java.util.List;

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
  private final boolean partitionFirmware;

  Vm(Machine machine, String name, KernelConfig guestConfig, Scheduler guestScheduler, HypervisorConfig hv) {
    this.name = name;
    this.guest = new Kernel(machine, name, guestConfig, guestScheduler, this);
    this.haltPollNs = hv.haltPollNs();
    this.machine = machine;
    this.spinTrap = hv.spinTrap();
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
    this.exitOverhead = hv.exitRoundtripNs() > 0
        ? Program.named("vcpu_enter_guest").work(hv.exitRoundtripNs(), "vmx_vcpu_run").build()
        : null;
    int pollSym = machine.symbols().symbol("kvm_vcpu_block", Machine.DOMAIN_KERNEL);
    this.haltHandler = Program.named("kvm_emulate_halt")
        .work(hv.exitHltNs(), "handle_halt")
        .op(new HaltOp(pollSym))
        .build();
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

  public void resetSpinTrapStats() {
    spinTraps = 0;
    directedYields = 0;
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
   * kvm_vcpu_on_spin's candidate loop (3.x–4.x): starting after the last boosted vCPU, the first
   * sibling whose thread was preempted while runnable ({@code vcpu->preempted}; a halted one is
   * skipped) gets {@code yield_to}; up to three {@code -ESRCH} answers end the search.
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
      switch (phase) {
        case 0 -> {
          long scan = spinTrap.scanPerVcpuNs() * vcpus.size();
          if (scan > 0) {
            t.startWork(scan, symScan, false);
          }
          return AGAIN;
        }
        case 1 -> {
          if (!spinTrap.directedYield() || !boostCandidate(t)) {
            return NEXT;
          }
          if (spinTrap.yieldNs() > 0) {
            t.startWork(spinTrap.yieldNs(), symYield, false);
          }
          return AGAIN;
        }
        case 2 -> {
          t.kernel.schedule(t.cpu, true); // yield_to's own schedule()
          return AGAIN;
        }
        default -> {
          return NEXT;
        }
      }
    }

    /** The candidate loop; true when yield_to boosted one. */
    private boolean boostCandidate(Task t) {
      int n = vcpus.size();
      int tries = 3;
      for (int k = 1; k <= n; k++) {
        int i = Math.floorMod(lastBoostedVcpu + k, n);
        VcpuTask candidate = vcpus.get(i);
        if (candidate == t || candidate.hostState() != VcpuTask.HostState.PREEMPTED) {
          continue;
        }
        int yielded = t.kernel.yieldTo(t, candidate);
        if (yielded > 0) {
          lastBoostedVcpu = i;
          directedYields++;
          return true;
        }
        if (yielded < 0 && --tries == 0) {
          break;
        }
      }
      return false;
    }
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

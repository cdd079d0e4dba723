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
  private final boolean partitionFirmware;

  Vm(Machine machine, String name, KernelConfig guestConfig, Scheduler guestScheduler, HypervisorConfig hv) {
    this.name = name;
    this.guest = new Kernel(machine, name, guestConfig, guestScheduler, this);
    this.haltPollNs = hv.haltPollNs();
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
      v.halted = true;
      v.state = TaskState.INTERRUPTIBLE;
      // the kick may already be there: kvm_vcpu_check_block before schedule()
      if (wakeable(v, g)) {
        v.state = TaskState.RUNNING;
      }
      v.kernel.schedule(v.cpu, false);
      return AGAIN;
    }
  }
}

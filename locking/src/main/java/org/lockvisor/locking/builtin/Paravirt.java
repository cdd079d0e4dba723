package org.lockvisor.locking.builtin;

import static com.google.common.base.Preconditions.checkState;

import java.util.function.Function;
import org.lockvisor.arch.spi.ArchCosts;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Op;
import org.lockvisor.machine.Ops;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Task;
import org.lockvisor.machine.VcpuTask;

/**
 * The KVM paravirtual spinlock hooks (arch/x86/kernel/kvm.c): {@code pv_wait} is
 * {@code kvm_wait}, a HLT exit that blocks the vCPU thread in {@code kvm_vcpu_block} until an
 * interrupt or a kick; {@code pv_kick} is {@code kvm_kick_cpu}, a KVM_HC_KICK_CPU hypercall
 * whose host side ({@code kvm_pv_kick_cpu_op}) sets pv_unhalted and wakes the target's thread.
 */
final class Paravirt {
  private Paravirt() {}

  /** A program that halts the calling guest task's vCPU (pv_wait). */
  static Program waitProgram(Kernel guest, ArchCosts costs, String frame) {
    checkState(guest.isGuest(), "pv_wait in a host kernel");
    return Program.named(frame)
        .work(costs.pvWaitNs(), "native_safe_halt")
        .op(Ops.vmExit(guest.vm().haltExitReason(), guest.vm().haltHandler()))
        .build();
  }

  /**
   * A program that kicks the vCPU of {@code target.apply(unlocker)} through a hypercall exit of the
   * unlocker's vCPU (pv_kick).
   */
  static Program kickProgram(Machine machine, ArchCosts costs, String frame, Function<Task, Task> target) {
    int symKick = machine.symbols().symbol("kvm_pv_kick_cpu_op", Machine.DOMAIN_KERNEL);
    int symYield = machine.symbols().symbol("yield_to", Machine.DOMAIN_KERNEL);
    Program hostSide = Program.named("kvm_emulate_hypercall")
        .op(new Op() {
          @Override
          public int execute(Task host, int phase) {
            VcpuTask v = (VcpuTask) host;
            switch (phase) {
              case 0 -> {
                Task unlocker = v.guestCpu().current();
                Task waiter = target.apply(unlocker);
                VcpuTask kicked = waiter == null ? null : waiter.cpu().vcpuTask();
                if (kicked != null) {
                  kicked.pvKick();
                  // 266e85a5ec91: kvm_sched_yield(vcpu->kvm, a1) right after kvm_pv_kick_cpu_op
                  v.kickYield(kicked);
                }
                if (costs.pvKickNs() > 0) {
                  host.startWork(costs.pvKickNs(), symKick, false);
                }
                return AGAIN;
              }
              case 1 -> {
                if (!v.takeKickYield()) {
                  return NEXT;
                }
                // yield_to's two runqueue locks and buddy marking, priced as the PLE handler's
                // boost (the spin trap's yieldNs: KVM_VCPU_ON_SPIN; 0 with the trap off)
                host.startWork(v.vm().spinTrap().yieldNs(), symYield, false);
                return AGAIN;
              }
              case 2 -> {
                host.kernel().schedule(host.cpu(), true); // yield_to's schedule() after a boost
                return AGAIN;
              }
              default -> {
                return NEXT; // the kicker runs again
              }
            }
          }

          @Override
          public String toString() {
            return "kvm_pv_kick_cpu_op";
          }
        })
        .build();
    return Program.named(frame)
        .op(Ops.vmExit("HYPERCALL", hostSide))
        .build();
  }
}

package org.lockvisor.locking.builtin;

import java.util.function.ToIntFunction;
import org.lockvisor.locking.spi.LockContext;
import org.lockvisor.machine.Op;
import org.lockvisor.machine.Ops;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Task;
import org.lockvisor.machine.VcpuTask;

/**
 * What the powerpc SPLPAR locks share with arch/powerpc/lib/locks.c (4.8) {@code __spin_yield} and
 * {@code __rw_yield}: the holder's lppaca {@code yield_count} (odd while its virtual processor is
 * not dispatched) and the {@code H_CONFER} hypercall that gives the caller's cycles to it.
 *
 * <p>The yield count is the holder's vCPU thread's dispatch count (twice its context switches,
 * plus one while it is off CPU). The hypervisor side of H_CONFER is its cost plus {@code
 * Vm.confer} with the holder's CPU: PHYP dispatches the holder's preempted VP on the caller's
 * processor; then the caller gives the processor up.
 */
final class SplparConfer {
  private SplparConfer() {}

  /** lppaca yield_count of the vCPU {@code t} runs on: odd while not dispatched. */
  static long yieldCount(Task t) {
    VcpuTask v = t.cpu().vcpuTask();
    if (v == null) {
      return 0;
    }
    return 2 * (v.voluntarySwitches() + v.involuntarySwitches()) + (v.onCpu() ? 0 : 1);
  }

  /**
   * The program {@code function} ({@code __spin_yield}, {@code __rw_yield}) a waiter calls: a
   * VM exit to H_CONFER for the guest CPU {@code target} names for the waiting guest task (the
   * holder_cpu the kernel read from the lock word).
   */
  static Program conferProgram(LockContext context, String function, ToIntFunction<Task> target) {
    int symConfer = context.hypervisorSymbol("H_CONFER");
    long conferNs = context.costs().confer();
    Program hypervisorSide = Program.named("h_confer")
        .op(new Op() {
          @Override
          public int execute(Task host, int phase) {
            switch (phase) {
              case 0 -> {
                if (conferNs > 0) {
                  host.startWork(conferNs, symConfer, false);
                }
                return AGAIN;
              }
              case 1 -> {
                // PHYP confers the caller's cycles to the holder's VP (H_CONFER with its cpu)
                VcpuTask caller = (VcpuTask) host;
                caller.vm().confer(host, target.applyAsInt(caller.guestCpu().current()));
                host.kernel().schedule(host.cpu(), false); // give the physical CPU away
                return AGAIN;
              }
              default -> {
                return NEXT;
              }
            }
          }
        })
        .build();
    return Program.named(function).op(Ops.vmExit("H_CONFER", hypervisorSide)).build();
  }
}

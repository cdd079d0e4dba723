package org.lockvisor.machine;

import java.util.function.Function;
import org.lockvisor.machine.config.KernelConfig;
import org.lockvisor.machine.config.TtwuQueueMode;

/**
 * One kernel's wakeup machinery beside the scheduler hooks, after kernel/sched/core.c ({@code
 * try_to_wake_up}, {@code ttwu_queue}/{@code ttwu_queue_remote}, {@code sched_ttwu_pending},
 * {@code scheduler_ipi}; 3.0 kernel/sched.c for the {@code on_cpu} wait): the {@link WakeOp}
 * every {@link Ops#wake} runs, the remote wake lists drained by the reschedule IPI, the IPI's
 * send and accept programs, the two switches of {@link Kernel#setTtwuWaitsOnCpu} and {@link
 * Kernel#setReschedIpiOnPreempt}, and the outcome counters of {@link Kernel#ttwuStats}. Kernel
 * keeps the public setters and read-outs; the state lives here. Allocates nothing per wakeup.
 */
final class Ttwu {
  private final Kernel kernel;
  long running;
  long onRq;
  long local;
  long remote;
  long queued;
  long onCpuWaits;
  long ipisSent;
  boolean waitsOnCpu;
  boolean reschedIpiOnPreempt;
  Program ipiAccept;
  /** scheduler_ipi: the accept program, then the wake list. */
  final Program reschedIpiHandler;
  private Program ipiSendProgram;

  Ttwu(Kernel kernel) {
    this.kernel = kernel;
    // interned here, in this order, as they always were (symbol ids order perf's ties)
    kernel.machine.symbols().symbol("scheduler_ipi", Machine.DOMAIN_KERNEL);
    var names = kernel.machine.kernelSymbols(); // the architecture's IPI paths (arch profile)
    kernel.machine.symbols().symbol(
        kernel.vm == null ? names.reschedSend() : names.guestIpiSend(), Machine.DOMAIN_KERNEL);
    this.reschedIpiHandler = Program.interruptHandler(names.reschedInterrupt())
        .op(Ops.call(t -> this.ipiAccept))
        .op(new Op() {
          @Override
          public int execute(Task t, int phase) {
            if (phase == 0) {
              // scheduler_ipi (kernel/sched.c 3.0.27): an empty wake list returns at once; a
              // non-empty one runs between irq_enter() and irq_exit(), whose exit runs what
              // softirqs are pending (Kernel.irqExit)
              boolean queued = !t.cpu.wakeList.isEmpty();
              drainWakeList(t.cpu);
              return queued ? AGAIN : NEXT;
            }
            return kernel.irqExit.execute(t, phase - 1);
          }
        })
        .build();
  }

  /** Queues a wakee on {@code target}'s wake list; true if an IPI must be sent (list was empty). */
  boolean queueWake(Task t, Cpu target) {
    boolean wasEmpty = target.wakeList.isEmpty();
    t.cpu = target;
    target.wakeList.add(t);
    return wasEmpty;
  }

  /** sched_ttwu_pending: activates every task queued on {@code cpu}'s wake list. */
  void drainWakeList(Cpu cpu) {
    Task t;
    while ((t = cpu.wakeList.poll()) != null) {
      if (!t.onRq && t.state != TaskState.DEAD) {
        kernel.activate(t, cpu);
      }
    }
  }

  /** Sending a reschedule IPI: a plain APIC write on the host, a VM exit in a guest without PV IPIs. */
  Program ipiSendProgram() {
    if (ipiSendProgram == null) {
      if (kernel.vm != null && kernel.config.ipiExits() && kernel.vm.partitionFirmware()) {
        // PowerVM: the IPI is the H_IPI hcall (XICS emulation in PHYP)
        Program handler = Program.named("H_IPI").op(Vm.hypervisorWork(kernel.machine, kernel.config.ipiSendNs(), "H_IPI")).build();
        ipiSendProgram = Program.named("smp_muxed_ipi_message_pass").op(Ops.vmExit("H_IPI", handler)).build();
      } else if (kernel.vm != null && kernel.config.ipiExits()) {
        var names = kernel.machine.kernelSymbols();
        Program handler = Program.named(names.guestIpiHandler()).work(kernel.config.ipiSendNs(), names.guestIpiWork())
            .build();
        ipiSendProgram = Program.named(names.reschedSend()).op(Ops.vmExit("MSR_WRITE", handler)).build();
      } else {
        var names = kernel.machine.kernelSymbols();
        ipiSendProgram = Program.named(names.reschedSend())
            .work(kernel.config.ipiSendNs(), kernel.vm == null ? names.hostIpiSend() : names.guestIpiSend()).build();
      }
    }
    return ipiSendProgram;
  }

  Kernel.TtwuStats stats() {
    return new Kernel.TtwuStats(running, onRq, local, remote, queued, ipisSent);
  }

  void reset() {
    running = onRq = local = remote = queued = ipisSent = onCpuWaits = 0;
  }

  /**
   * try_to_wake_up (kernel/sched/core.c): the waker takes the wakee's pi_lock; if the wakee is
   * already running that is all (fast exit); if it is still on its runqueue its state is set
   * back to running; otherwise it is placed on a CPU and enqueued — directly, or through the
   * remote CPU's wake list and a reschedule IPI (TTWU_QUEUE). The wakee becomes runnable at the
   * start of phase 1; the waker keeps paying the rest of the path afterwards.
   */
  static final class WakeOp extends Op {
    /** The wakee (the waker's scratch object) is no longer being switched out. */
    private static final SpinCondition ON_CPU_CLEARED = t -> {
      Task w = (Task) t.scratchObject;
      return w.cpu == null || w.cpu.switchingOut != w;
    };
    private final Function<Task, Task> target;
    private int symTtwu = -1;
    private Machine owner;

    WakeOp(Function<Task, Task> target) {
      this.target = target;
    }

    @Override
    public int execute(Task t, int phase) {
      Kernel k = t.kernel;
      Ttwu ttwu = k.ttwu;
      KernelConfig cfg = k.config;
      if (owner != t.machine) {
        symTtwu = t.machine.symbols().symbol("try_to_wake_up", Machine.DOMAIN_KERNEL);
        owner = t.machine;
      }
      switch (phase) {
        case 0 -> {
          Task w = target.apply(t);
          if (w == null) {
            return NEXT;
          }
          t.scratchObject = w;
          t.scratch = 0;
          if (cfg.ttwuRunningNs() > 0) {
            t.startWork(cfg.ttwuRunningNs(), symTtwu, false);
          }
          return AGAIN;
        }
        case 1 -> {
          // while (p->on_cpu) cpu_relax(): a sleeper its CPU is still switching out
          Task w = (Task) t.scratchObject;
          if (ttwu.waitsOnCpu && w.state != TaskState.RUNNING && w.state != TaskState.DEAD && !w.onRq
              && w.cpu != null && w.cpu.switchingOut == w) {
            ttwu.onCpuWaits++;
            t.startSpin(symTtwu, ON_CPU_CLEARED, 0, w);
          }
          return AGAIN;
        }
        case 2 -> {
          Task w = (Task) t.scratchObject;
          t.scratchObject = null;
          long pre = cfg.ttwuRunningNs();
          if (w.state == TaskState.RUNNING || w.state == TaskState.DEAD) {
            ttwu.running++;
            w.ttwuFoundRunning++;
            return NEXT;
          }
          long rest;
          if (w.onRq) {
            w.state = TaskState.RUNNING;
            ttwu.onRq++;
            w.ttwuFoundOnRq++;
            rest = cfg.ttwuOnRqNs() - pre;
          } else {
            Cpu dest = k.selectWakeCpu(w, t.cpu);
            boolean remote = dest != t.cpu;
            boolean queued = remote && (cfg.ttwuQueue() == TtwuQueueMode.ANY_REMOTE
                || (cfg.ttwuQueue() == TtwuQueueMode.CROSS_LLC && !k.sharesCache(dest, t.cpu)));
            if (queued) {
              w.state = TaskState.RUNNING;
              ttwu.queued++;
              if (ttwu.queueWake(w, dest)) {
                t.scratch = 1; // send the reschedule IPI
                t.scratchObject = dest;
              }
              rest = cfg.ttwuFullNs() / 2 - pre;
            } else {
              boolean wasIdle = dest.isIdle();
              boolean hadResched = dest.needResched;
              k.activate(w, dest);
              if (remote) {
                ttwu.remote++;
                if (wasIdle) {
                  t.scratch = 2; // resched_curr on an idle remote CPU: IPI to kick it
                  t.scratchObject = dest;
                } else if (ttwu.reschedIpiOnPreempt && !hadResched && dest.needResched) {
                  t.scratch = 1; // wakeup preemption of a remote running CPU: reschedule IPI
                  t.scratchObject = dest;
                }
              } else {
                ttwu.local++;
              }
              rest = cfg.ttwuFullNs() - pre;
            }
          }
          if (rest > 0) {
            t.startWork(rest, symTtwu, false);
          }
          return AGAIN;
        }
        case 3 -> {
          if (t.scratch == 0) {
            return NEXT;
          }
          Cpu dest = (Cpu) t.scratchObject;
          boolean queuedIpi = t.scratch == 1;
          t.scratch = 0;
          t.scratchObject = null;
          ttwu.ipisSent++;
          if (MachineTrace.HOOKS) {
            t.machine.trace().onIpi(t.cpu, dest);
          }
          if (queuedIpi) {
            dest.raiseInterrupt(ttwu.reschedIpiHandler);
          }
          t.call(ttwu.ipiSendProgram());
          return AGAIN;
        }
        default -> {
          return NEXT;
        }
      }
    }

    @Override
    public String toString() {
      return "wake";
    }
  }

}

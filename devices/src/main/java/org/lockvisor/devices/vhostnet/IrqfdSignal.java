package org.lockvisor.devices.vhostnet;

import java.util.ArrayDeque;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Ops;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Task;
import org.lockvisor.machine.TaskState;

/**
 * {@code vhost_signal} → {@code eventfd_signal} → {@code irqfd_wakeup} (virt/kvm/eventfd.c): in
 * 3.0 {@code irqfd_wakeup} calls {@code schedule_work(&irqfd->inject)} — a no-op while the work is
 * pending ({@code test_and_set_bit(WORK_STRUCT_PENDING)}) — and the signalling CPU's kworker runs
 * {@code irqfd_inject}; with direct injection (later kernels) the signaller injects. Its state (the
 * kworkers, their queues, the pending bits) is its own; it runs the guest driver's inject
 * programs, handed to {@link #signal} as programs.
 *
 * <p>Split out of {@link VhostWorker}, whose programs call it and which it never calls back.
 */
final class IrqfdSignal {
  private final VhostNetConfig config;
  private final VhostNetCosts costs;
  private final Kernel host;
  private final VhostNetCounters stats;
  /** The guest's {@code irqfd_inject} of its RX and TX interrupts (the kworkers' work items). */
  private Program rxInject;
  private Program txInject;
  /** The kworker of each host CPU (3.0 irqfd injection through {@code schedule_work}). */
  Task[] kworkers;
  private ArrayDeque<Program>[] kworkerQueue;
  private boolean rxInjectPending;
  private boolean txInjectPending;

  IrqfdSignal(VhostNetConfig config, VhostNetCosts costs, Kernel host, VhostNetCounters stats) {
    this.config = config;
    this.costs = costs;
    this.host = host;
    this.stats = stats;
  }

  /** Spawns the 3.0 kworkers, one bound to each host CPU (none with direct injection). */
  @SuppressWarnings("unchecked")
  void start() {
    if (config.irqfdInject() == VhostNetConfig.IrqfdInject.KWORKER) {
      this.kworkers = new Task[host.cpuCount()];
      this.kworkerQueue = new ArrayDeque[host.cpuCount()];
      for (int c = 0; c < host.cpuCount(); c++) {
        kworkerQueue[c] = new ArrayDeque<>(4);
        kworkers[c] = host.spawnSleeping("kworker/" + c + ":1", kworkerProgram(c), c);
      }
    }
  }

  /**
   * vhost_signal → eventfd_signal → irqfd_wakeup: in 3.0 {@code schedule_work(&irqfd->inject)} on
   * the signalling CPU (a no-op while the work is pending) and the kworker injects; with direct
   * injection the signaller does it all. {@code inject} is the guest's {@code irqfd_inject} of
   * that queue's interrupt.
   */
  Program signal(boolean rx, Program inject) {
    if (rx) {
      rxInject = inject;
    } else {
      txInject = inject;
    }
    if (config.irqfdInject() == VhostNetConfig.IrqfdInject.DIRECT) {
      return Program.named("vhost_signal")
          .work(costs.eventfdSignalNs(), "eventfd_signal")
          .run(t -> {
            if (rx) {
              stats.rxSignals++;
            } else {
              stats.txSignals++;
            }
          })
          .call(inject)
          .build();
    }
    return Program.named("vhost_signal")
        .work(costs.eventfdSignalNs(), "eventfd_signal")
        .run(t -> {
          t.scratch2 = 0;
          if (rx) {
            stats.rxSignals++;
          } else {
            stats.txSignals++;
          }
          boolean pending = rx ? rxInjectPending : txInjectPending;
          if (!pending) { // test_and_set_bit(WORK_STRUCT_PENDING)
            if (rx) {
              rxInjectPending = true;
            } else {
              txInjectPending = true;
            }
            int c = t.cpu().index();
            kworkerQueue[c].add(inject);
            t.scratch2 = c + 1;
          }
        })
        .op(Ops.call(t -> t.scratch2 > 0 ? wakeKworker : null))
        .build();
  }

  private final Program wakeKworker = Program.named("insert_work")
      .op(Ops.wake(t -> {
        int c = (int) t.scratch2 - 1;
        t.scratch2 = 0;
        return c >= 0 ? kworkers[c] : null;
      }))
      .build();

  /** worker_thread of a CPU-bound 3.0 workqueue: run queued items, sleep when none. */
  private Program kworkerProgram(int cpu) {
    // made once: a capturing lambda inside the op would be a new object on every sleep
    java.util.function.Predicate<Task> hasWork = x -> !kworkerQueue[cpu].isEmpty();
    Program sleep = Program.named("schedule")
        .run(t -> t.setBlockedOn("irqfd inject work", hasWork))
        .op(Ops.schedule())
        .run(Task::clearBlockedOn)
        .build();
    Program body = Program.named("worker_thread")
        .op(Ops.setState(TaskState.INTERRUPTIBLE))
        .op(Ops.call(t -> {
          Program item = kworkerQueue[cpu].poll();
          if (item == null) {
            return sleep;
          }
          t.setState(TaskState.RUNNING);
          if (item == rxInject) {
            rxInjectPending = false; // work_clear_pending before the function runs
          } else {
            txInjectPending = false;
          }
          stats.kworkerInjects++;
          return item;
        }))
        .op(Ops.condResched())
        .build();
    return Program.named("kthread").loopWhile(t -> true, body).build();
  }
}

package org.lockvisor.devices.vhostnet;

import org.lockvisor.core.sim.Simulation;
import org.lockvisor.machine.Cpu;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Ops;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Task;
import org.lockvisor.machine.TaskState;

/**
 * The host's NET_RX softirq for the guest-receive NIC queues, with 3.0.27's bounds (kernel/softirq.c
 * {@code __do_softirq}, {@code irq_exit}, {@code run_ksoftirqd}; net/core/dev.c {@code
 * net_rx_action}). Split out of {@link GuestReceive}, which builds each queue's {@code
 * net_rx_action} and asks here for the budget; nothing here calls back.
 *
 * <ul>
 *   <li>One {@code net_rx_action} stops when {@code netdev_budget} = 300 frames are used up or 2
 *       jiffies have passed ({@code time_limit = jiffies + 2}) and re-raises NET_RX_SOFTIRQ
 *       ({@link #squeezed}).
 *   <li>{@code __do_softirq} runs at most {@code MAX_SOFTIRQ_RESTART} = 10 rounds, then {@code
 *       wakeup_softirqd}: the queue stays scheduled (its interrupt masked) and NET_RX stays
 *       pending on the CPU. The CPU's {@code ksoftirqd} — an ordinary CFS thread at nice 0 ({@code
 *       run_ksoftirqd}) — polls it in task context, calling {@code cond_resched} between {@code
 *       __do_softirq} runs.
 *   <li>Until then, the next hard interrupt on that CPU — the timer tick, a reschedule IPI that ran
 *       a wake list, a background softirq interrupt — runs it at its {@code irq_exit} ({@code if
 *       (!in_interrupt() && local_softirq_pending()) invoke_softirq();}), on the stack of the task
 *       it interrupted ({@link #onIrqExit}, registered with {@link Kernel#addPendingSoftirq}).
 *       Not while a {@code __do_softirq} runs on that CPU already ({@code in_interrupt()}:
 *       ksoftirqd's, in task context, can be interrupted).
 * </ul>
 *
 * <p>Allocation-free: primitive arrays per queue and per CPU, programs built once.
 */
final class NetRxSoftirq {
  /** net/core/dev.c 3.0.27: {@code int netdev_budget __read_mostly = 300}. */
  static final int NETDEV_BUDGET = 300;
  /** kernel/softirq.c 3.0.27: {@code #define MAX_SOFTIRQ_RESTART 10}. */
  static final int MAX_SOFTIRQ_RESTART = 10;

  private final Simulation sim;
  private final int cpus;
  private final int queues;
  private final long timeLimitNs;
  private final Program[] softirq;
  private final Program[] softirqThenResched;
  private final int[] budget;
  private final long[] start;
  private final int[] restartsLeft;
  private final boolean[] pending;
  /** Queues whose NAPI waits for ksoftirqd (still scheduled, interrupt masked, NET_RX pending). */
  private final boolean[] deferred;
  /** Queues an irq_exit on their CPU is about to run. */
  private final boolean[] exitRun;
  /** __do_softirq frames running on a CPU: {@code in_interrupt()} for its irq_exit. */
  private final int[] depth;
  private final Task[] ksoftirqd;
  private final Program[] wakeKsoftirqd;
  private final Program[] irqExitSoftirq;

  /** net_rx_action runs cut short by the budget or the time limit ({@code sd->time_squeeze}). */
  long timeSqueezes;
  long ksoftirqdWakes;
  long ksoftirqdRuns;
  /** Deferred queues run by a hard interrupt's irq_exit (the tick, an IPI) rather than by ksoftirqd. */
  long irqExitRuns;

  /** Spawns {@code host}'s ksoftirqd threads, asleep, and registers the irq_exit path. */
  NetRxSoftirq(Simulation sim, Kernel host, int queues) {
    this.sim = sim;
    this.cpus = host.cpuCount();
    this.queues = queues;
    this.timeLimitNs = 2 * host.config().tickNs();
    this.softirq = new Program[queues];
    this.softirqThenResched = new Program[queues];
    this.budget = new int[queues];
    this.start = new long[queues];
    this.restartsLeft = new int[queues];
    this.pending = new boolean[queues];
    this.deferred = new boolean[queues];
    this.exitRun = new boolean[queues];
    this.depth = new int[cpus];
    this.ksoftirqd = new Task[cpus];
    this.wakeKsoftirqd = new Program[cpus];
    this.irqExitSoftirq = new Program[cpus];
    spawnKsoftirqd(host);
    host.addPendingSoftirq(this::onIrqExit);
  }

  /** net_rx_action begins for queue {@code q}: {@code budget = netdev_budget}, {@code time_limit = jiffies + 2}. */
  void begin(int q) {
    budget[q] = NETDEV_BUDGET;
    start[q] = sim.now();
  }

  /** A poll of queue {@code q} took {@code n} frames: {@code budget -= work}. */
  void used(int q, int n) {
    budget[q] -= n;
  }

  /**
   * Whether net_rx_action must stop before polling queue {@code q} again ({@code softnet_break}):
   * then NET_RX_SOFTIRQ is raised again ({@code __raise_softirq_irqoff}) for {@code __do_softirq}'s
   * next round.
   */
  boolean squeezed(int q) {
    if (budget[q] <= 0 || sim.now() - start[q] > timeLimitNs) {
      pending[q] = true;
      timeSqueezes++;
      return true;
    }
    return false;
  }

  /**
   * Builds queue {@code q}'s {@code __do_softirq} around its {@code netRxAction} and returns it
   * (the NIC interrupt's {@code irq_exit} → {@code invoke_softirq} calls it).
   */
  Program install(int q, Program netRxAction) {
    int cpu = q % cpus;
    softirq[q] = Program.named("__do_softirq")
        .run(t -> {
          restartsLeft[q] = MAX_SOFTIRQ_RESTART;
          pending[q] = true;
          depth[cpu]++; // __local_bh_disable(SOFTIRQ_OFFSET): in_interrupt() from here
        })
        .op(Ops.loopCall(t -> {
          if (!pending[q]) {
            depth[cpu]--; // __local_bh_enable(SOFTIRQ_OFFSET)
            return null;
          }
          if (restartsLeft[q]-- == 0) { // pending after the last restart: wakeup_softirqd
            pending[q] = false; // still pending for the kernel: ksoftirqd (or an irq_exit) runs it
            deferred[q] = true;
            return wakeKsoftirqd[cpu];
          }
          pending[q] = false;
          return netRxAction;
        }))
        .build();
    softirqThenResched[q] = Program.named("run_ksoftirqd")
        .call(softirq[q])
        .op(Ops.condResched())
        .build();
    return softirq[q];
  }

  /**
   * {@code irq_exit} on {@code c}: the queues of that CPU left to ksoftirqd, unless a {@code
   * __do_softirq} is running there ({@code in_interrupt()}). Their {@code __do_softirq} has its
   * own {@code MAX_SOFTIRQ_RESTART} rounds and may leave a queue to ksoftirqd again; ksoftirqd,
   * once it runs, finds only what is still pending.
   */
  Program onIrqExit(Cpu c) {
    int cpu = c.index();
    if (depth[cpu] > 0) {
      return null;
    }
    boolean any = false;
    for (int q = cpu; q < queues; q += cpus) {
      if (deferred[q]) {
        deferred[q] = false;
        exitRun[q] = true;
        any = true;
      }
    }
    return any ? irqExitSoftirq[cpu] : null;
  }

  /** Whether queue {@code q} waits for ksoftirqd (tests). */
  boolean deferred(int q) {
    return deferred[q];
  }

  /** Leaves queue {@code q} to ksoftirqd as a {@code __do_softirq} out of restarts does (tests). */
  void deferForTest(int q) {
    deferred[q] = true;
  }

  private int nextDeferred(int cpu) {
    for (int q = cpu; q < queues; q += cpus) {
      if (deferred[q]) {
        return q;
      }
    }
    return -1;
  }

  /**
   * Creates the host CPUs' {@code ksoftirqd} threads, asleep (kernel/softirq.c 3.0.27 {@code
   * run_ksoftirqd}: sleeps while nothing is pending; while something is, {@code __do_softirq} then
   * {@code cond_resched}). Only a {@code __do_softirq} that ran out of restarts wakes one ({@code
   * wakeup_softirqd}, which skips a thread already TASK_RUNNING).
   */
  private void spawnKsoftirqd(Kernel host) {
    Program sleep = Program.named("schedule").op(Ops.schedule()).build();
    for (int c = 0; c < cpus; c++) {
      int cpu = c;
      Program wake = Program.named("wake_up_process")
          .run(t -> ksoftirqdWakes++)
          .op(Ops.wake(t -> ksoftirqd[cpu]))
          .build();
      wakeKsoftirqd[c] = Program.named("wakeup_softirqd")
          .op(Ops.call(t -> ksoftirqd[cpu].state() != TaskState.RUNNING ? wake : null))
          .build();
      Program body = Program.named("run_ksoftirqd")
          .op(Ops.setState(TaskState.INTERRUPTIBLE))
          .op(Ops.call(t -> nextDeferred(cpu) < 0 ? sleep : null))
          .op(Ops.setState(TaskState.RUNNING))
          .op(Ops.loopCall(t -> {
            int q = nextDeferred(cpu);
            if (q < 0) {
              return null;
            }
            deferred[q] = false;
            ksoftirqdRuns++;
            return softirqThenResched[q];
          }))
          .build();
      // irq_exit -> invoke_softirq -> __do_softirq: every queue of this CPU marked by onIrqExit
      irqExitSoftirq[c] = Program.named("invoke_softirq")
          .op(Ops.loopCall(t -> {
            for (int q = cpu; q < queues; q += cpus) {
              if (exitRun[q]) {
                exitRun[q] = false;
                irqExitRuns++;
                return softirq[q];
              }
            }
            return null;
          }))
          .build();
      ksoftirqd[c] = host.spawnSleeping("ksoftirqd/" + c,
          Program.named("kthread").op(Ops.loopWhile(t -> true, body)).build(), c);
    }
  }

  void resetStats() {
    timeSqueezes = ksoftirqdWakes = ksoftirqdRuns = irqExitRuns = 0;
  }
}

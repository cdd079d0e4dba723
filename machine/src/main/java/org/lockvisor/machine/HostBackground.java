package org.lockvisor.machine;

import java.util.SplittableRandom;
import org.lockvisor.core.random.RandomStreams;
import org.lockvisor.core.sim.EventHandler;
import org.lockvisor.machine.config.HostActivity;

/**
 * Runs a {@link HostActivity}'s softirqs and kworkers on the host's CPUs: one softirq and one
 * kworker arrival process per CPU, each with its own random stream ({@code host/cpuN/softirq},
 * {@code host/cpuN/kworker}). Events allocate nothing.
 */
final class HostBackground implements EventHandler {
  private final Kernel host;
  private final HostActivity activity;
  private final SplittableRandom[] softirqRandom;
  private final SplittableRandom[] kworkerRandom;
  private final Program softirq;
  private final Task[] kworkers;
  long softirqs;
  long kworkerWakeups;

  HostBackground(Kernel host, HostActivity activity) {
    this.host = host;
    this.activity = activity;
    int n = host.cpuCount();
    softirqRandom = new SplittableRandom[n];
    kworkerRandom = new SplittableRandom[n];
    kworkers = new Task[n];
    RandomStreams streams = host.machine().sim().streams();
    // the background interrupt's __do_softirq runs whatever else is pending on the CPU too (Kernel.irqExit)
    softirq = Program.interruptHandler("irq_exit").work(Math.max(1, activity.softirqNs()), "__do_softirq")
        .op(host.irqExit)
        .build();
    Program kworkerLoop = Program.named("worker_thread")
        .op(Ops.loopWhile(t -> true, Program.named("process_one_work")
            .work(Math.max(1, activity.kworkerNs()), "process_one_work")
            .op(Ops.setState(TaskState.INTERRUPTIBLE))
            .op(Ops.schedule())
            .build()))
        .build();
    for (int i = 0; i < n; i++) {
      String cpu = host.name() + "/cpu" + i;
      softirqRandom[i] = streams.get(cpu + "/softirq");
      kworkerRandom[i] = streams.get(cpu + "/kworker");
      if (activity.kworkerPerSecond() > 0) {
        kworkers[i] = host.spawnSleeping("kworker/" + i + ":1", kworkerLoop, i);
      }
    }
  }

  void start() {
    for (int i = 0; i < host.cpuCount(); i++) {
      if (activity.softirqPerSecond() > 0) {
        next(2 * i, softirqRandom[i], activity.softirqPerSecond());
      }
      if (activity.kworkerPerSecond() > 0) {
        next(2 * i + 1, kworkerRandom[i], activity.kworkerPerSecond());
      }
    }
  }

  private void next(int kind, SplittableRandom random, double perSecond) {
    long gap = Math.max(1, RandomStreams.exponential(random, 1e9 / perSecond));
    host.machine().sim().schedule(gap, this, kind, 0);
  }

  @Override
  public void onEvent(int kind, long arg) {
    int cpu = kind >> 1;
    if ((kind & 1) == 0) {
      softirqs++;
      host.cpu(cpu).raiseInterrupt(softirq);
      next(kind, softirqRandom[cpu], activity.softirqPerSecond());
    } else {
      kworkerWakeups++;
      host.wakeUpNow(kworkers[cpu], host.cpu(cpu));
      next(kind, kworkerRandom[cpu], activity.kworkerPerSecond());
    }
  }

  @Override
  public String toString() {
    return host.name() + " background (softirqs, kworkers)";
  }
}

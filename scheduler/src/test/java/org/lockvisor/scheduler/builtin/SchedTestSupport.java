package org.lockvisor.scheduler.builtin;

import java.util.ArrayList;
import java.util.List;
import org.lockvisor.core.sim.EventHandler;
import org.lockvisor.machine.Cpu;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.MachineTrace;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Task;

/** Small fixtures shared by the scheduler tests. */
final class SchedTestSupport {
  static final long US = 1_000;
  static final long MS = 1_000_000;

  private SchedTestSupport() {}

  /** A CPU-bound program: user work forever, in 1 ms pieces. */
  static Program cpuBound(String name) {
    return Program.named(name)
        .loopWhile(t -> true, Program.named(name + "_loop").userWork(MS, name + "_user").build())
        .build();
  }

  /** One stretch of time a task was current on a CPU. */
  record Run(Task task, long start, long end) {
    long length() {
      return end - start;
    }
  }

  /** Records the runs of every task on one CPU from the machine's switch events. */
  static final class RunRecorder implements MachineTrace {
    private final Cpu cpu;
    private final Machine machine;
    private final List<Run> runs = new ArrayList<>();
    private Task current;
    private long since;

    RunRecorder(Machine machine, Cpu cpu) {
      this.machine = machine;
      this.cpu = cpu;
    }

    @Override
    public void onSwitch(Cpu c, Task prev, Task next) {
      if (c != cpu) {
        return;
      }
      long now = machine.sim().now();
      if (current != null && current != cpu.idleTask() && now > since) {
        runs.add(new Run(current, since, now));
      }
      current = next;
      since = now;
    }

    /** Completed runs, plus the one in progress cut at now. */
    List<Run> runs() {
      List<Run> all = new ArrayList<>(runs);
      long now = machine.sim().now();
      if (current != null && current != cpu.idleTask() && now > since) {
        all.add(new Run(current, since, now));
      }
      return all;
    }

    /** CPU time {@code task} was current within [from, to). */
    long onCpu(Task task, long from, long to) {
      long sum = 0;
      for (Run r : runs()) {
        if (r.task() == task) {
          sum += Math.max(0, Math.min(to, r.end()) - Math.max(from, r.start()));
        }
      }
      return sum;
    }
  }

  /** Calls {@code action} every {@code periodNs} starting at {@code firstNs}. */
  static void every(Machine m, long firstNs, long periodNs, Runnable action) {
    EventHandler h = new EventHandler() {
      @Override
      public void onEvent(int kind, long arg) {
        action.run();
        m.sim().schedule(periodNs, this, 0, 0);
      }
    };
    m.sim().schedule(firstNs, h, 0, 0);
  }

  /** Calls {@code action} once at {@code atNs}. */
  static void at(Machine m, long atNs, Runnable action) {
    m.sim().scheduleAt(atNs, (k, a) -> action.run(), 0, 0);
  }
}

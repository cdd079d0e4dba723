package org.lockvisor.scheduler.builtin;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.ArrayDeque;
import org.lockvisor.core.sim.EventHandler;
import org.lockvisor.core.sim.EventQueue;
import org.lockvisor.machine.Cpu;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Scheduler;
import org.lockvisor.machine.Task;

/**
 * Round-robin with a fixed quantum (SCHED_RR-like): one FIFO runqueue per CPU; the running task
 * is preempted when its quantum expires and another task is waiting. Wakeups go to the task's
 * previous CPU, or to an idle CPU if the previous one is busy; they never preempt.
 */
public final class RoundRobinScheduler implements Scheduler, EventHandler {
  private final long quantumNs;
  private Kernel kernel;
  private ArrayDeque<Task>[] queues;
  private long[] expiry;

  public RoundRobinScheduler(long quantumNs) {
    checkArgument(quantumNs > 0, "quantum must be positive: %s", quantumNs);
    this.quantumNs = quantumNs;
  }

  @Override
  @SuppressWarnings("unchecked")
  public void init(Kernel k) {
    this.kernel = k;
    queues = new ArrayDeque[k.cpuCount()];
    expiry = new long[k.cpuCount()];
    for (int i = 0; i < queues.length; i++) {
      queues[i] = new ArrayDeque<>();
      expiry[i] = EventQueue.NO_EVENT;
    }
  }

  @Override
  public void enqueue(Cpu cpu, Task task, boolean wakeup) {
    queues[cpu.index()].addLast(task);
  }

  @Override
  public void dequeue(Cpu cpu, Task task) {
    queues[cpu.index()].remove(task);
  }

  @Override
  public void putPrev(Cpu cpu, Task prev) {
    queues[cpu.index()].addLast(prev);
  }

  @Override
  public Task pickNext(Cpu cpu) {
    return queues[cpu.index()].pollFirst();
  }

  @Override
  public Cpu selectCpu(Task task, Cpu wakerCpu) {
    Cpu prev = task.cpu();
    if (prev != null && prev.kernel() == kernel && (prev.isIdle() || queues[prev.index()].isEmpty())) {
      return prev;
    }
    Cpu best = prev != null && prev.kernel() == kernel ? prev : kernel.cpu(0);
    for (Cpu c : kernel.cpus()) {
      if (c.isIdle() && queues[c.index()].isEmpty()) {
        return c;
      }
      if (queues[c.index()].size() < queues[best.index()].size()) {
        best = c;
      }
    }
    return best;
  }

  @Override
  public boolean wakeupPreempt(Cpu cpu, Task current, Task woken) {
    return false;
  }

  @Override
  public void tick(Cpu cpu, Task current) {
    // the quantum has its own timer; the tick does nothing here
  }

  @Override
  public void switchedIn(Cpu cpu, Task task) {
    var sim = kernel.machine().sim();
    sim.cancel(expiry[cpu.index()]);
    expiry[cpu.index()] = task == cpu.idleTask()
        ? EventQueue.NO_EVENT
        : sim.schedule(quantumNs, this, cpu.index(), task.id());
  }

  @Override
  public void onEvent(int cpuIndex, long taskId) {
    expiry[cpuIndex] = EventQueue.NO_EVENT;
    Cpu cpu = kernel.cpu(cpuIndex);
    if (cpu.current().id() != taskId) {
      return;
    }
    if (!queues[cpuIndex].isEmpty()) {
      cpu.reschedule();
    } else {
      expiry[cpuIndex] = kernel.machine().sim().schedule(quantumNs, this, cpuIndex, taskId);
    }
  }

  @Override
  public int runnable(Cpu cpu) {
    return queues[cpu.index()].size();
  }
}

package org.lockvisor.machine;

import java.util.ArrayList;
import java.util.List;
import org.lockvisor.core.sim.EventObserver;

/**
 * Checks the machine's invariants after every event (invariant mode): each CPU has a current
 * task that points back at it; no task is current on two CPUs; a guest CPU executes exactly
 * while its vCPU thread is in guest mode on a running physical CPU; runqueues hold exactly the
 * queued runnable tasks; every nanosecond of a physical CPU is charged to some thread.
 * Additional checks (locks, devices) are registered with {@link #add}.
 */
public final class MachineInvariants implements EventObserver {
  private final Machine machine;
  private final List<Check> extra = new ArrayList<>();
  private long checks;

  /** An extra invariant; returns null when it holds, else a description of the violation. */
  @FunctionalInterface
  public interface Check {
    String violation();
  }

  public MachineInvariants(Machine machine) {
    this.machine = machine;
  }

  public MachineInvariants add(Check check) {
    extra.add(check);
    return this;
  }

  public long checks() {
    return checks;
  }

  /** Installs this checker as the simulation's observer. */
  public MachineInvariants install() {
    machine.sim().setObserver(this);
    return this;
  }

  @Override
  public void afterEvent(long time, int kind, long arg) {
    check();
  }

  /** Runs every check now; throws {@link InvariantViolation} on the first that fails. */
  public void check() {
    checks++;
    long now = machine.sim().now();
    List<Cpu> cpus = machine.cpus();
    int taskCount = machine.tasks().size();
    int[] currentOn = new int[taskCount];
    java.util.Arrays.fill(currentOn, -1);
    for (Cpu c : cpus) {
      Task cur = c.current;
      if (cur == null) {
        fail(now, c + " has no current task");
      }
      if (cur.cpu != c) {
        fail(now, c + " runs " + cur + " whose cpu is " + cur.cpu);
      }
      if (currentOn[cur.id] >= 0) {
        fail(now, cur + " is current on " + machine.cpuById(currentOn[cur.id]) + " and " + c);
      }
      currentOn[cur.id] = c.id;
      if (cur.state == TaskState.DEAD) {
        fail(now, c + " runs dead task " + cur);
      }
      if (c.isGuest()) {
        VcpuTask v = c.vcpuTask;
        boolean shouldRun = v.onCpu() && v.cpu.canRun() && v.activity == Activity.GUEST;
        if (c.powered != shouldRun) {
          fail(now, c + " powered=" + c.powered + " but its vCPU thread " + v + " is "
              + (v.onCpu() ? "on " + v.cpu + " doing " + v.activity : "off cpu"));
        }
      }
    }
    for (Kernel k : kernels()) {
      int queued = 0;
      for (Cpu c : k.cpus) {
        queued += k.scheduler.runnable(c) + k.scheduler.throttled(c);
      }
      int onRq = 0;
      int currentOnRq = 0;
      for (Task t : k.tasks) {
        if (t.onRq) {
          onRq++;
          if (t.onCpu()) {
            currentOnRq++;
          }
        }
      }
      if (queued != onRq - currentOnRq) {
        fail(now, "kernel " + k + ": runqueues hold " + queued + " tasks but " + (onRq - currentOnRq)
            + " tasks are on a runqueue and not current");
      }
    }
    machine.syncAccounting();
    for (Cpu c : machine.host().cpus) {
      long charged = machine.account().cpuTotal(c.id);
      if (charged != now) {
        fail(now, c + " has " + charged + " ns charged after " + now + " ns: time lost or double-counted");
      }
    }
    for (Check x : extra) {
      String v = x.violation();
      if (v != null) {
        fail(now, v);
      }
    }
  }

  private List<Kernel> kernels() {
    List<Kernel> ks = new ArrayList<>();
    ks.add(machine.host());
    for (Vm vm : machine.vms()) {
      ks.add(vm.guest);
    }
    return ks;
  }

  private static void fail(long now, String message) {
    throw new InvariantViolation(now, message);
  }
}

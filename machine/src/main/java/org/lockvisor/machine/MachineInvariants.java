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
  private long[] currentOnCheck = new long[0];
  private int[] currentOn = new int[0];
  private Kernel[] kernels = new Kernel[0];
  private int kernelsAtCpus = -1;
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
    // Allocation-free: runs after every event in invariant mode. A task seen current in this
    // check carries this check's number in currentOnCheck (no clearing per check).
    int cpuCount = machine.cpuCount();
    int taskCount = machine.taskCount();
    if (currentOnCheck.length < taskCount) {
      currentOnCheck = java.util.Arrays.copyOf(currentOnCheck, Math.max(taskCount, 2 * currentOnCheck.length));
      currentOn = java.util.Arrays.copyOf(currentOn, currentOnCheck.length);
    }
    if (cpuCount != kernelsAtCpus) {
      kernels = kernels().toArray(new Kernel[0]);
      kernelsAtCpus = cpuCount;
    }
    for (int i = 0; i < cpuCount; i++) {
      Cpu c = machine.cpuById(i);
      Task cur = c.current;
      if (cur == null) {
        fail(now, c + " has no current task");
      }
      if (cur.cpu != c) {
        fail(now, c + " runs " + cur + " whose cpu is " + cur.cpu);
      }
      if (currentOnCheck[cur.id] == checks) {
        fail(now, cur + " is current on " + machine.cpuById(currentOn[cur.id]) + " and " + c);
      }
      currentOnCheck[cur.id] = checks;
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
    for (Kernel k : kernels) {
      int queued = 0;
      for (int i = 0, n = k.cpus.size(); i < n; i++) {
        Cpu c = k.cpus.get(i);
        queued += k.scheduler.runnable(c) + k.scheduler.throttled(c);
      }
      int onRq = 0;
      int currentOnRq = 0;
      for (int i = 0, n = k.tasks.size(); i < n; i++) {
        Task t = k.tasks.get(i);
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
    for (int i = 0, n = machine.host().cpus.size(); i < n; i++) {
      Cpu c = machine.host().cpus.get(i);
      long charged = machine.account().cpuTotal(c.id);
      if (charged != now) {
        fail(now, c + " has " + charged + " ns charged after " + now + " ns: time lost or double-counted");
      }
    }
    for (int i = 0, n = extra.size(); i < n; i++) {
      String v = extra.get(i).violation();
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

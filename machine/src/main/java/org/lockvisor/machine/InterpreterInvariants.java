package org.lockvisor.machine;

import java.util.ArrayList;
import java.util.List;

/**
 * The interpreter's own invariants, checked on request ({@link Machine#interpreterViolation}): each
 * CPU has a current task that points back at it; no task is current on two CPUs; a guest CPU
 * executes exactly while its vCPU thread is in guest mode on a running physical CPU; runqueues hold
 * exactly the queued runnable tasks; every nanosecond of a physical CPU is charged to some thread.
 * It reads the interpreter's run state, which is not public, and so lives beside it; the observer
 * that runs it after every event is {@code org.lockvisor.machine.observe.MachineInvariants}.
 */
final class InterpreterInvariants {
  private final Machine machine;
  private long[] currentOnCheck = new long[0];
  private int[] currentOn = new int[0];
  private Kernel[] kernels = new Kernel[0];
  private int kernelsAtCpus = -1;
  private long checks;

  InterpreterInvariants(Machine machine) {
    this.machine = machine;
  }

  /** Null when every invariant holds now, else the first violation. */
  String violation() {
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
        return c + " has no current task";
      }
      if (cur.cpu != c) {
        return c + " runs " + cur + " whose cpu is " + cur.cpu;
      }
      if (currentOnCheck[cur.id] == checks) {
        return cur + " is current on " + machine.cpuById(currentOn[cur.id]) + " and " + c;
      }
      currentOnCheck[cur.id] = checks;
      currentOn[cur.id] = c.id;
      if (cur.state == TaskState.DEAD) {
        return c + " runs dead task " + cur;
      }
      if (c.isGuest()) {
        VcpuTask v = c.vcpuTask;
        boolean shouldRun = v.onCpu() && v.cpu.canRun() && v.activity == Activity.GUEST;
        if (c.powered != shouldRun) {
          return c + " powered=" + c.powered + " but its vCPU thread " + v + " is "
              + (v.onCpu() ? "on " + v.cpu + " doing " + v.activity : "off cpu");
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
        return "kernel " + k + ": runqueues hold " + queued + " tasks but " + (onRq - currentOnRq)
            + " tasks are on a runqueue and not current";
      }
    }
    machine.syncAccounting();
    for (int i = 0, n = machine.host().cpus.size(); i < n; i++) {
      Cpu c = machine.host().cpus.get(i);
      long charged = machine.account().cpuTotal(c.id);
      if (charged != now) {
        return c + " has " + charged + " ns charged after " + now + " ns: time lost or double-counted";
      }
    }
    return null;
  }

  private List<Kernel> kernels() {
    List<Kernel> ks = new ArrayList<>();
    ks.add(machine.host());
    for (Vm vm : machine.vms()) {
      ks.add(vm.guest);
    }
    return ks;
  }
}

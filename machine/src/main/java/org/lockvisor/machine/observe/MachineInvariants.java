package org.lockvisor.machine.observe;

import java.util.ArrayList;
import java.util.List;
import org.lockvisor.core.sim.EventObserver;
import org.lockvisor.machine.Machine;

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
    String interpreter = machine.interpreterViolation();
    if (interpreter != null) {
      fail(now, interpreter);
    }
    for (int i = 0, n = extra.size(); i < n; i++) {
      String v = extra.get(i).violation();
      if (v != null) {
        fail(now, v);
      }
    }
  }

  private static void fail(long now, String message) {
    throw new InvariantViolation(now, message);
  }
}

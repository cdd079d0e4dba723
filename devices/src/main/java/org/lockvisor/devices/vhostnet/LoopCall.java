package org.lockvisor.devices.vhostnet;

import java.util.function.Function;
import org.lockvisor.machine.Op;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Task;

/** Calls the program {@code chooser} picks until it picks null (a kernel loop over named bodies). */
final class LoopCall extends Op {
  private final Function<Task, Program> chooser;

  LoopCall(Function<Task, Program> chooser) {
    this.chooser = chooser;
  }

  @Override
  public int execute(Task t, int phase) {
    Program p = chooser.apply(t);
    if (p == null) {
      return NEXT;
    }
    t.call(p);
    return AGAIN;
  }
}

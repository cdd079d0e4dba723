package org.lockvisor.devices.virtioblk;

import java.util.function.Function;
import org.lockvisor.machine.Op;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Task;

/**
 * Calls the program {@code chooser} picks, again and again, until it picks null: a kernel
 * {@code while} loop whose body is one of several named functions, without an extra frame.
 */
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

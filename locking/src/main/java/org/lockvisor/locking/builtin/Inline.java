package org.lockvisor.locking.builtin;

import org.lockvisor.machine.Op;
import org.lockvisor.machine.Task;

/**
 * Runs another op inside the calling op's visit, with its own phase counter: a mutex takes its
 * wait_lock, or a sleeping lock its OSQ, the way the kernel calls {@code spin_lock} or
 * {@code osq_lock} from {@code __mutex_lock_common}. Time the inner op starts is charged under
 * the caller's frame.
 */
final class Inline {
  private int phase;

  /** Runs (or continues) {@code op}; returns {@link Op#NEXT} when it finished. */
  int run(Op op, Task t) {
    int r = op.execute(t, phase++);
    if (r == Op.NEXT) {
      phase = 0;
    }
    return r;
  }

  void reset() {
    phase = 0;
  }
}

package org.lockvisor.scheduler.builtin;

import java.util.ArrayDeque;
import org.lockvisor.core.sim.EventQueue;

/** One physical processor's dispatch state in {@link PowervmDispatchScheduler} (smt = 1).
 *
 * <p>Split out of {@link PowervmDispatchScheduler}.
 */
final class PowervmRq {
  final int index;
  final ArrayDeque<PowervmVp> ready = new ArrayDeque<>(8);
  final ArrayDeque<PowervmVp> throttled = new ArrayDeque<>(4);
  PowervmVp curr;
  /** A VP conferred to by this processor's caller: dispatched next. */
  PowervmVp conferred;
  long exhaustHandle = EventQueue.NO_EVENT;
  long exhausted;

  PowervmRq(int index) {
    this.index = index;
  }
}

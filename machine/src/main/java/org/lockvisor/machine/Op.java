package org.lockvisor.machine;

/**
 * One operation of a {@link Program}: the instruction set of the machine.
 *
 * <p>The interpreter calls {@link #execute(Task, int)} with a phase number that starts at 0 for
 * each visit of the op. The op either finishes ({@link #NEXT}: the program counter advances) or
 * asks to be called again ({@link #AGAIN}) with the next phase once whatever it started is over:
 * a piece of work, a spin, a sleep, a VM exit, or a called sub-program. If it started nothing
 * the interpreter calls it again at once. Multi-phase ops model kernel routines whose effects
 * happen part-way, e.g. try_to_wake_up makes the wakee runnable and then keeps costing the
 * waker. Ops are immutable and shared; per-visit state lives in the task's scratch fields.
 */
public abstract class Op {

  /** The op is finished; advance the program counter. */
  public static final int NEXT = 0;

  /** Call again with phase + 1 when the wait or call the op started is over. */
  public static final int AGAIN = 1;

  /** Executes phase {@code phase} of this op for task {@code t}, which is running on its CPU. */
  public abstract int execute(Task t, int phase);

  /** Short description for traces and error messages. */
  @Override
  public String toString() {
    return getClass().getSimpleName();
  }
}

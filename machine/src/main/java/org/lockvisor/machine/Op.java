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
 *
 * <p>The protocol, for a plugin's op (a lock's acquire, a device's submit path):
 *
 * <ul>
 *   <li>Phase 0 is the op's first visit; each {@link #AGAIN} is answered by a call with the next
 *       phase (1, 2, ...) once the wait the phase started is over. An op that keeps its own step
 *       in per-task state (a lock's node) may ignore the phase number.
 *   <li>A phase starts at most one thing: {@link Task#startWork} (CPU time that reads nothing),
 *       {@link Task#startSpin} (CPU time that ends on a condition: the lock word, need_resched, a
 *       budget), a sleep ({@link Task#setState} to a sleeping state, then {@link
 *       Task#scheduleNow}), or a call ({@link Task#call}); then it returns {@link #AGAIN}.
 *   <li>Returning {@link #AGAIN} without starting anything calls the op again at once with the
 *       next phase (no simulated time passes); returning {@link #NEXT} ends the op.
 *   <li>What another task sees changes only through state the op writes before it returns; a task
 *       that waits on that state is told by a {@link Task#poke} (a spinner) or {@link Ops#wake} (a
 *       sleeper). Pokes reach spins only ({@link Task#poke}).
 *   <li>While a task's vCPU is preempted, whatever it started freezes and resumes later: an op
 *       never sees the preemption, only the time it took.
 * </ul>
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

package org.lockvisor.machine;

/**
 * What the entry of an interrupt handler saves of the task it interrupts and the handler's return
 * restores — the model's {@code struct pt_regs} of {@code irq_enter}/{@code irq_exit}: the
 * activity in progress and what remained of it (work time or spin budget), the charged stack,
 * user or kernel mode, the interrupt flag, the spin loop's vcpu_is_preempted read clock, and the
 * scratch state of a multi-phase op of the interrupted context (e.g. try_to_wake_up keeps its
 * wakee there across phases; the handler's own ops must not clobber it). One per task, made with
 * it; saving allocates nothing.
 */
final class IrqSavedContext {
  private Activity activity;
  private int stack;
  private long remaining;
  private boolean user;
  private boolean irqsDisabled;
  private long scratch;
  private long scratch2;
  private Object scratchObject;
  private long spinCheckPeriod;
  private long spinCheckSpun;
  private int spinCheckStack;

  /** Saves {@code t}'s interrupted context (before the handler frame is pushed). */
  void save(Task t) {
    activity = t.activity;
    stack = t.activityStack;
    remaining = t.activity == Activity.WORK ? t.workRemaining : t.spinBudget;
    spinCheckPeriod = t.spinCheckPeriod;
    spinCheckSpun = t.spinCheckSpun;
    spinCheckStack = t.spinCheckStack;
    user = t.workUser;
    irqsDisabled = t.irqsDisabled;
    scratch = t.scratch;
    scratch2 = t.scratch2;
    scratchObject = t.scratchObject;
  }

  /** Restores what {@link #save} kept (after the handler frame returned). */
  void restore(Task t) {
    t.irqsDisabled = irqsDisabled;
    t.activity = activity;
    t.activityStack = stack;
    if (t.activity == Activity.WORK) {
      t.workRemaining = remaining;
    } else if (t.activity == Activity.SPIN) {
      t.spinBudget = remaining;
    }
    t.spinCheckPeriod = spinCheckPeriod;
    t.spinCheckSpun = spinCheckSpun;
    t.spinCheckStack = spinCheckStack;
    t.workUser = user;
    t.scratch = scratch;
    t.scratch2 = scratch2;
    t.scratchObject = scratchObject;
    scratchObject = null;
    activity = null;
  }
}

package org.lockvisor.machine;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;

import java.util.Arrays;
import org.lockvisor.core.sim.EventHandler;
import org.lockvisor.core.sim.EventQueue;

/**
 * A thread of a kernel (host or guest): the kernel's task_struct state plus the interpreter of
 * the programs it runs.
 *
 * <p>A task makes progress only while it is current on a {@link Cpu} that can run (a physical
 * CPU, or a guest CPU whose vCPU thread is in guest mode on a physical CPU). When its CPU
 * freezes, a piece of work in progress keeps its remaining time and a spin keeps its remaining
 * budget; both resume when the CPU runs again. Scheduler plugins keep their per-task data in
 * {@link #schedData}.
 *
 * <p>Beside it: {@link IrqSavedContext} (what an interrupt handler saves of the task), {@link
 * TaskWatchers}, {@link TaskAttachment}; the scheduler's per-task state is the plugin's own
 * object. The rest is one cut, over 600 lines and above 30 methods on purpose: the interpreter loop,
 * the activity state machine ({@code onEvent}, {@code freeze}, {@code arm}, {@code endSpin}) and
 * the frames read the same fields on every simulated event, and moving any of them behind another
 * object would add a dereference per op on the machine's hottest path; the public methods are
 * the ops' API ({@code startWork}, {@code startSpin}, {@code irqSave}, {@code preemptEnable},
 * {@code call}, ...) and one-line read-outs of task_struct fields, used by every plugin.
 */
public non-sealed class Task implements EventHandler, SpinWatch {
  static final int EV_WORK_DONE = 1;
  static final int EV_SPIN_BUDGET = 2;
  static final int EV_SPIN_RECHECK = 3;

  final int id;
  final String name;
  final Kernel kernel;
  final Machine machine;

  // task_struct
  TaskState state = TaskState.RUNNING;
  boolean onRq;
  Cpu cpu;
  int preemptCount;
  boolean irqsDisabled;
  int irqDepth;
  /** When the outermost interrupt running on this task began, and the interrupt time before it. */
  private long irqEnteredAt;
  private long interruptNs;
  /** An interrupt taken inline at local_irq_enable whose handler has not returned yet. */
  boolean inlineIrq;
  /** scheduleNow was called while {@link #inlineIrq}: schedule when the handler returns. */
  boolean scheduleAfterIrq;
  long wakeups;
  /** try_to_wake_up calls that found this task already running (fast exit). */
  long ttwuFoundRunning;
  /** try_to_wake_up calls that found this task sleeping-to-be but still on its runqueue. */
  long ttwuFoundOnRq;
  long involuntarySwitches;
  long voluntarySwitches;

  // interpreter
  private Program[] progs = new Program[8];
  private int[] pcs = new int[8];
  private int[] phases = new int[8];
  private int[] frameStacks = new int[8];
  private int depth;
  private final int rootStack;

  // activity
  Activity activity = Activity.NONE;
  int activityStack;
  long workRemaining;
  long workDue;
  boolean workUser;
  long eventHandle = EventQueue.NO_EVENT;
  SpinCondition spinCondition;
  long spinBudget;
  long spinArmed;
  private long spinStartedAt;
  private int spinSymbol;
  long spinBudgetHandle = EventQueue.NO_EVENT;
  long recheckHandle = EventQueue.NO_EVENT;
  boolean spinTimedOut;
  SpinWatch watching;
  /** Spin time between two vcpu_is_preempted reads of the current spin loop; 0: it reads none. */
  long spinCheckPeriod;
  /** CPU time spun so far in the current spin loop that reads vcpu_is_preempted. */
  long spinCheckSpun;
  /** The stack the reads are charged to (spin stack + the arch's check function), or -1: inlined. */
  int spinCheckStack = -1;

  /** What an interrupt handler running on this task saved of the interrupted context. */
  private final IrqSavedContext irqSaved = new IrqSavedContext();

  // affinity: -1 means any CPU of the kernel
  int pinnedCpu = -1;

  // What the task waits for (correctness checking): a WaitQueue, a lock, or null.
  private Object blockedOn;
  private java.util.function.Predicate<Task> blockedCondition;
  private long blockedSince;

  /**
   * The load weight of the task's nice level ({@code sched_prio_to_weight}; 1024 at nice 0), read
   * by weighted schedulers.
   */
  public int weight = 1024;
  /**
   * The scheduler's per-task state (CFS: its {@code sched_entity} with vruntime and the exec
   * clocks), owned and typed by the scheduler plugin that serves the task's kernel.
   */
  public Object schedData;

  /** Scratch state for multi-phase ops (one op visit at a time per task). */
  public long scratch;
  public long scratch2;
  public Object scratchObject;

  /** The per-task state of the workload or device that spawned the task ({@link TaskAttachment}). */
  TaskAttachment<?> attachmentKey;
  Object attachment;

  /**
   * The stacks this task interned last, direct-mapped by (parent stack, symbol): every stack of a
   * task grows from its own root, so the machine's stack index holds a few for each task and a
   * lookup there is a cache miss on a busy machine, while a task's loop re-enters the same few.
   * Ids are the index's own, so hits change nothing but the time.
   */
  private static final int STACK_MEMO = 8;
  private final long[] stackMemoKey = new long[STACK_MEMO];
  private final int[] stackMemoId = new int[STACK_MEMO];

  Task(Machine machine, Kernel kernel, int id, String name, Program program) {
    Arrays.fill(stackMemoKey, -1L); // no (parent, symbol) key is negative
    this.machine = machine;
    this.kernel = kernel;
    this.id = id;
    this.name = name;
    this.rootStack = machine.symbols().push(0, machine.symbols().symbol(name, Machine.DOMAIN_TASK));
    if (program != null) {
      pushFrame(program);
    }
  }

  /**
   * What this task waits for: the {@link WaitQueue} it sleeps on, the lock it is acquiring (set
   * by lock checkers), or null. Used by deadlock and lost-wakeup detection only.
   */
  public Object blockedOn() {
    return blockedOn;
  }

  /** The condition the task sleeps until (with a wait queue), or null. */
  public java.util.function.Predicate<Task> blockedCondition() {
    return blockedCondition;
  }

  /** Simulated time at which the task started waiting for {@link #blockedOn()}. */
  public long blockedSince() {
    return blockedSince;
  }

  /** Records that the task waits for {@code what} until {@code condition} (may be null). */
  public void setBlockedOn(Object what, java.util.function.Predicate<Task> condition) {
    if (blockedOn != what) {
      blockedSince = machine.sim().now();
    }
    blockedOn = what;
    blockedCondition = condition;
  }

  /** The task no longer waits. */
  public void clearBlockedOn() {
    blockedOn = null;
    blockedCondition = null;
  }

  public int id() {
    return id;
  }

  public String name() {
    return name;
  }

  public Kernel kernel() {
    return kernel;
  }

  public Machine machine() {
    return machine;
  }

  public TaskState state() {
    return state;
  }

  public boolean onRq() {
    return onRq;
  }

  /** The CPU this task is current on, or last ran on. */
  public Cpu cpu() {
    return cpu;
  }

  /** True while the task is the current task of its CPU (the kernel's {@code on_cpu}). */
  public boolean onCpu() {
    return cpu != null && cpu.current == this;
  }

  /** True while the task is current on a CPU that is actually executing (not frozen). */
  public boolean running() {
    return onCpu() && cpu.canRun();
  }

  public Activity activity() {
    return activity;
  }

  /** The symbol the current spin is charged to, or -1 when the task is not spinning. */
  public int spinSymbol() {
    return activity == Activity.SPIN ? spinSymbol : -1;
  }

  public int preemptCount() {
    return preemptCount;
  }

  public boolean irqsDisabled() {
    return irqsDisabled;
  }

  public boolean inInterrupt() {
    return irqDepth > 0;
  }

  public boolean spinTimedOut() {
    return spinTimedOut;
  }

  /**
   * The CPU time left of the last spin's budget when it ended: its budget less the time it
   * actually spun on a running CPU (0 when it timed out; {@link Long#MAX_VALUE} for a spin without
   * budget). Time the spinner's CPU did not run (a guest interrupt, a pause-loop exit and the
   * directed yield of its handler, the vCPU thread preempted) is not spin-loop iterations: a
   * paravirt lock's {@code SPIN_THRESHOLD} counter keeps its count across them
   * (arch/x86/include/asm/spinlock.h 3.12 {@code arch_spin_lock}: {@code count} is a local of the
   * guest loop, which a VM exit suspends and re-entry resumes).
   */
  public long spinBudgetLeft() {
    return spinBudget;
  }

  public int pinnedCpu() {
    return pinnedCpu;
  }

  /** Pins the task to one CPU index of its kernel (-1: any). */
  public void pin(int cpuIndex) {
    this.pinnedCpu = cpuIndex;
  }

  public long wakeups() {
    return wakeups;
  }

  /** try_to_wake_up calls with this task as target that took the fast exit (it was running). */
  public long ttwuFoundRunning() {
    return ttwuFoundRunning;
  }

  /** try_to_wake_up calls with this task as target that found it still on its runqueue. */
  public long ttwuFoundOnRq() {
    return ttwuFoundOnRq;
  }

  public long involuntarySwitches() {
    return involuntarySwitches;
  }

  public long voluntarySwitches() {
    return voluntarySwitches;
  }

  /** Whether the task has finished its program. */
  public boolean isDead() {
    return state == TaskState.DEAD;
  }

  int depth() {
    return depth;
  }

  /** The current call stack id (for accounting), i.e. of the innermost frame. */
  /** The interned stack {@code parent} + {@code symbol} (see {@link #stackMemoKey}). */
  int stackOf(int parent, int symbol) {
    long key = ((long) parent << 32) | (symbol & 0xFFFF_FFFFL);
    int i = (int) ((key * 0x9E3779B97F4A7C15L) >>> 61);
    if (stackMemoKey[i] == key) {
      return stackMemoId[i];
    }
    int stack = machine.symbols().push(parent, symbol);
    stackMemoKey[i] = key;
    stackMemoId[i] = stack;
    return stack;
  }

  int currentStack() {
    return depth == 0 ? rootStack : frameStacks[depth - 1];
  }

  // ---------------------------------------------------------------------------------------
  // Ops API: flags.

  private long irqFlagStack;
  private int irqFlagDepth;

  /** local_irq_save: remembers the interrupt state and disables interrupts. */
  public void irqSave() {
    if (irqFlagDepth >= 63) {
      throw new IllegalStateException(name + ": irq save nesting deeper than 63");
    }
    irqFlagStack = (irqFlagStack << 1) | (irqsDisabled ? 1 : 0);
    irqFlagDepth++;
    irqsDisabled = true;
  }

  /** local_irq_restore: back to the saved state; pending interrupts run if re-enabled. */
  public void irqRestore() {
    checkState(irqFlagDepth > 0, "%s: irq restore without save", name);
    boolean disabled = (irqFlagStack & 1) != 0;
    irqFlagStack >>>= 1;
    irqFlagDepth--;
    irqsDisabled = disabled;
    if (!disabled) {
      cpu.takeInterruptInline(this);
    }
  }

  public void irqDisable() {
    irqsDisabled = true;
  }

  /** local_irq_enable; pending interrupts run at once (their handler frame is pushed). */
  public void irqEnable() {
    irqsDisabled = false;
    cpu.takeInterruptInline(this);
  }

  public void preemptDisable() {
    preemptCount++;
  }

  /**
   * preempt_enable: returns true if the task was switched out here (CONFIG_PREEMPT and
   * need_resched); the calling op must then return at once.
   */
  public boolean preemptEnable() {
    checkState(preemptCount > 0, "%s: preempt_enable without preempt_disable", name);
    preemptCount--;
    return preemptCount == 0 && activity == Activity.NONE && cpu.preemptIfNeeded();
  }

  /** set_current_state. */
  public void setState(TaskState s) {
    state = s;
  }

  /**
   * schedule() from inside an op: a task whose state is not RUNNING goes to sleep until woken;
   * the op should return {@link Op#AGAIN} and continue in its next phase after the wakeup.
   */
  public void scheduleNow() {
    if (inlineIrq) {
      // an interrupt taken at local_irq_enable in this op has not run yet: the kernel would
      // have run it before schedule() (spin_unlock_irq; schedule()), so it runs first and the
      // schedule follows its return (Cpu.afterInterrupt); otherwise a reschedule IPI's
      // wake-list drain would sleep with this task and its wakeups be lost
      scheduleAfterIrq = true;
      return;
    }
    kernel.schedule(cpu, false);
  }

  // ---------------------------------------------------------------------------------------
  // Ops API: what ops may start.

  /**
   * Starts {@code ns} of work charged to {@code symbol} under the current frame ({@code user}:
   * charged as user time); the op returns {@link Op#AGAIN} and is called with its next phase when
   * the work is done. Work is CPU time that reads no shared state: a preempted task's work freezes
   * and resumes with what remained; {@link #poke} does not shorten it (a poke is dropped unless the
   * task spins), and PLE never sees it (a pause-loop exit counts only {@link #startSpin spins} in
   * guest mode). Model a delay loop that does not read the lock word ({@code ndelay}, a backoff
   * that only counts) as work, and a loop that reads it as a spin.
   */
  public void startWork(long ns, int symbol, boolean user) {
    checkState(activity == Activity.NONE, "%s: work started while %s", name, activity);
    activity = Activity.WORK;
    activityStack = stackOf(currentStack(), symbol);
    workRemaining = Math.max(0, machine.workJitter == null ? ns : machine.workJitter.adjust(ns));
    workUser = user;
    cpu.armCurrent();
  }

  /**
   * Starts spinning, charged to {@code symbol}, until {@code condition} holds, or until the spin
   * has run for {@code budgetNs} of CPU time (then {@link #spinTimedOut()} is true on resume); the
   * op returns {@link Op#AGAIN} and is called with its next phase when the spin ends. A budget of
   * 0 (or less) means no budget: the spin ends only when its condition holds.
   *
   * <p>The condition is evaluated when the spin starts (a condition already true ends it at once),
   * when the spinner is {@linkplain #poke poked} (a lock hand-off, need_resched), when {@code
   * watch} changes state, and when the spinner's CPU resumes after a freeze; never polled in small
   * steps. {@code watch} is the {@link SpinWatch} whose state changes must re-evaluate the
   * condition (the owner's CPU for on_cpu and vcpu_is_preempted, a task for its on_cpu); null
   * watches nothing, and then a condition that reads another task's state (owner on CPU, vCPU
   * preempted) goes stale until the next poke: a spin on an owner that is preempted while the
   * spinner spins keeps spinning unless something pokes it.
   *
   * <p>A spin occupies its CPU like work, but in a guest it is what PLE sees: a vCPU that spins in
   * guest mode for the hypervisor's PLE window takes a pause-loop exit (and, with directed yield,
   * {@code kvm_vcpu_on_spin}); work never does.
   */
  public void startSpin(int symbol, SpinCondition condition, long budgetNs, SpinWatch watch) {
    startSpin(symbol, condition, budgetNs, watch, 0);
  }

  /**
   * Starts a spin as {@link #startSpin(int, SpinCondition, long, SpinWatch)} does, in a loop that
   * reads {@code vcpu_is_preempted} once every {@code checkPeriodNs} of spinning (the first read at
   * its start; {@link VcpuPreemptedReads#spinCheckPeriodNs}; 0: the loop reads none). Each read
   * costs the kernel's {@link VcpuPreemptedReads#checkNs}: that share of the spin's CPU time is charged to
   * the kernel's check function under the spin symbol (or stays on the spin symbol where the
   * arch inlines the check), and the reads are counted ({@link VcpuPreemptedReads#checks}). The
   * spin still ends on its events: the reads make the loop slower, not longer.
   */
  public void startSpin(int symbol, SpinCondition condition, long budgetNs, SpinWatch watch, long checkPeriodNs) {
    checkState(activity == Activity.NONE, "%s: spin started while %s", name, activity);
    checkArgument(checkPeriodNs >= 0, "checkPeriodNs must not be negative: %s", checkPeriodNs);
    activity = Activity.SPIN;
    spinStartedAt = machine.sim().now();
    spinSymbol = symbol;
    activityStack = stackOf(currentStack(), symbol);
    VcpuPreemptedReads reads = kernel.vcpuPreemptedReads;
    spinCheckPeriod = reads.checkNs() > 0 ? checkPeriodNs : 0;
    spinCheckSpun = 0;
    spinCheckStack = spinCheckPeriod > 0 && reads.checkSymbol() >= 0
        ? machine.symbols().push(activityStack, reads.checkSymbol()) : -1;
    spinCondition = condition;
    spinBudget = budgetNs <= 0 ? Long.MAX_VALUE : budgetNs;
    spinTimedOut = false;
    watching = watch;
    if (watch instanceof Cpu c) {
      c.addWatcher(this);
    } else if (watch instanceof Task w) {
      w.cpuWatchers().add(this);
    }
    cpu.armCurrent();
  }

  /**
   * Of {@code ns} more CPU time in the current spin, the part spent in vcpu_is_preempted reads:
   * one read of {@code c} ns starts every {@link #spinCheckPeriod}, the first at the spin's start,
   * so after {@code T} ns of spinning {@code ceil(T / period)} reads have started and {@code
   * (T / period) * c + min(T % period, c)} ns were spent in them. Counts the reads started.
   */
  long spinCheckShare(long ns) {
    long period = spinCheckPeriod;
    VcpuPreemptedReads reads = kernel.vcpuPreemptedReads;
    long c = reads.checkNs();
    long before = spinCheckSpun;
    long after = before + ns;
    spinCheckSpun = after;
    long share = (after / period) * c + Math.min(after % period, c) - ((before / period) * c + Math.min(before % period, c));
    reads.count((after + period - 1) / period - (before + period - 1) / period, share);
    return share;
  }

  /**
   * Asks a spinning task to re-evaluate its spin condition after {@code delayNs} (the time the
   * changed lock word takes to reach it, e.g. a line transfer). A poke reaches only a spin: when
   * the task is not spinning (it works, sleeps, or has not started its spin yet) the poke is
   * dropped, on purpose, because no loop is reading the lock word then; the spin it starts later
   * evaluates its condition at its start, so a hand-off that happened meanwhile is not lost. A poke
   * does not end a spin whose condition is still false (a poke is "read the lock word again", not
   * "wake up"), and a spinner that is not running when the re-evaluation is due (its vCPU
   * preempted) re-evaluates when it runs again. A waiter that must be woken from a sleep is woken
   * with {@link Ops#wake}, from work by nothing: it sees the change when its work ends.
   */
  public void poke(long delayNs) {
    if (activity != Activity.SPIN) {
      return;
    }
    long due = machine.sim().now() + delayNs;
    long existing = machine.sim().timeOf(recheckHandle);
    if (existing >= 0 && existing <= due) {
      return;
    }
    machine.sim().cancel(recheckHandle);
    recheckHandle = machine.sim().schedule(delayNs, this, EV_SPIN_RECHECK, 0);
  }

  private TaskWatchers taskWatchers;

  TaskWatchers cpuWatchers() {
    if (taskWatchers == null) {
      taskWatchers = new TaskWatchers();
    }
    return taskWatchers;
  }

  /** Pokes spinners watching this task (its on_cpu changed). */
  void notifyWatchers() {
    if (taskWatchers != null) {
      taskWatchers.pokeAll();
    }
  }

  /** Pushes a frame that runs {@code p}; the calling op is resumed (next phase) when it returns. */
  public void call(Program p) {
    pushFrame(p);
  }

  void pushFrame(Program p) {
    if (depth == progs.length) {
      int n = depth * 2;
      progs = Arrays.copyOf(progs, n);
      pcs = Arrays.copyOf(pcs, n);
      phases = Arrays.copyOf(phases, n);
      frameStacks = Arrays.copyOf(frameStacks, n);
    }
    int parent = currentStack();
    progs[depth] = p;
    pcs[depth] = 0;
    phases[depth] = 0;
    frameStacks[depth] = stackOf(parent, p.symbol(machine));
    depth++;
  }

  // ---------------------------------------------------------------------------------------
  // The interpreter.

  /** Runs ops until the task waits, leaves its CPU, or its CPU stops running. */
  void interpret() {
    Cpu c = cpu;
    int guard = 0;
    while (activity == Activity.NONE && c.current == this && c.canRun()) {
      if (depth == 0) {
        kernel.exit(this);
        return;
      }
      int f = depth - 1;
      Program p = progs[f];
      int pc = pcs[f];
      if (pc >= p.length()) {
        popFrame();
        continue;
      }
      if (++guard > 1_000_000) {
        throw new IllegalStateException(name + ": more than a million instant ops in a row in " + p.name()
            + " (a loop without work?)");
      }
      int phase = phases[f];
      int r = p.op(pc).execute(this, phase);
      if (r == Op.NEXT) {
        pcs[f] = pc + 1;
        phases[f] = 0;
        if (c.needResched && activity == Activity.NONE && c.current == this && preemptibleNow()) {
          kernel.schedule(c, true);
        }
      } else {
        phases[f] = phase + 1;
      }
    }
  }

  private void popFrame() {
    depth--;
    Program p = progs[depth];
    progs[depth] = null;
    if (p.isInterruptFrame()) {
      endInterrupt();
    }
  }

  /**
   * Time interrupt handlers have run on this task's stack so far, from entry to return (the
   * handler's work, and any time its vCPU lost its processor meanwhile): a lock's hold time
   * includes it when the holder keeps interrupts enabled (issue 37).
   */
  public long interruptNs() {
    return interruptNs + (irqDepth > 0 ? machine.sim().now() - irqEnteredAt : 0);
  }

  /** Called by the CPU to run an interrupt handler on this (current) task. */
  void beginInterrupt(Program handler) {
    if (irqDepth == 0) {
      irqEnteredAt = machine.sim().now();
    }
    irqSaved.save(this);
    activity = Activity.NONE;
    irqsDisabled = true;
    irqDepth++;
    pushFrame(handler);
  }

  private void endInterrupt() {
    irqDepth--;
    if (irqDepth == 0) {
      interruptNs += machine.sim().now() - irqEnteredAt;
      inlineIrq = false;
    }
    irqSaved.restore(this);
    cpu.afterInterrupt(this);
  }

  // ---------------------------------------------------------------------------------------
  // Events.

  @Override
  public void onEvent(int kind, long arg) {
    switch (kind) {
      case EV_WORK_DONE -> {
        eventHandle = EventQueue.NO_EVENT;
        if (activity == Activity.WORK && running()) {
          cpu.flushAccounting();
          workRemaining = 0;
          activity = Activity.NONE;
          cpu.chargeNothing();
          interpret();
        }
      }
      case EV_SPIN_BUDGET -> {
        spinBudgetHandle = EventQueue.NO_EVENT;
        if (activity == Activity.SPIN && running()) {
          spinTimedOut = true;
          spinBudget = 0;
          endSpin();
          interpret();
        }
      }
      case EV_SPIN_RECHECK -> {
        recheckHandle = EventQueue.NO_EVENT;
        if (activity == Activity.SPIN && running() && spinCondition.done(this)) {
          endSpin();
          interpret();
        }
      }
      default -> throw new IllegalStateException("unknown task event " + kind);
    }
  }

  /** Freezes the current activity (CPU stops, preemption, interrupt); keeps what remains. */
  void freeze() {
    long now = machine.sim().now();
    switch (activity) {
      case WORK -> {
        if (eventHandle != EventQueue.NO_EVENT) {
          machine.sim().cancel(eventHandle);
          eventHandle = EventQueue.NO_EVENT;
          workRemaining = Math.max(0, workDue - now);
        }
      }
      case SPIN -> {
        if (spinBudgetHandle != EventQueue.NO_EVENT) {
          machine.sim().cancel(spinBudgetHandle);
          spinBudgetHandle = EventQueue.NO_EVENT;
        }
        if (spinBudget != Long.MAX_VALUE) {
          spinBudget = Math.max(0, spinBudget - (now - spinArmed));
        }
        machine.sim().cancel(recheckHandle);
        recheckHandle = EventQueue.NO_EVENT;
        cpu.cancelSpinTrap();
      }
      default -> {}
    }
  }

  /** Arms the current activity on a running CPU; returns true if the interpreter should run. */
  boolean arm() {
    long now = machine.sim().now();
    switch (activity) {
      case WORK -> {
        if (eventHandle == EventQueue.NO_EVENT) {
          workDue = now + workRemaining;
          eventHandle = machine.sim().schedule(workRemaining, this, EV_WORK_DONE, 0);
        }
        return false;
      }
      case SPIN -> {
        if (spinCondition.done(this)) {
          endSpin();
          return true;
        }
        spinArmed = now;
        if (spinBudget != Long.MAX_VALUE && spinBudgetHandle == EventQueue.NO_EVENT) {
          spinBudgetHandle = machine.sim().schedule(spinBudget, this, EV_SPIN_BUDGET, 0);
        }
        if (cpu.vcpuTask != null) {
          cpu.vcpuTask.vm.armSpinTrap(cpu, this);
        }
        return false;
      }
      case EXIT -> {
        activity = Activity.NONE;
        return true;
      }
      case NONE -> {
        return true;
      }
      default -> {
        return false;
      }
    }
  }

  /** Ends a spin (hand-off, bail-out or budget): accounting stops, watchers are dropped. */
  void endSpin() {
    cpu.flushAccounting();
    if (spinBudgetHandle != EventQueue.NO_EVENT && spinBudget != Long.MAX_VALUE) {
      spinBudget = Math.max(0, spinBudget - (machine.sim().now() - spinArmed)); // armed: spun since spinArmed
    }
    machine.sim().cancel(spinBudgetHandle);
    spinBudgetHandle = EventQueue.NO_EVENT;
    machine.sim().cancel(recheckHandle);
    recheckHandle = EventQueue.NO_EVENT;
    cpu.cancelSpinTrap();
    if (watching instanceof Cpu c) {
      c.removeWatcher(this);
    } else if (watching instanceof Task w) {
      w.cpuWatchers().remove(this);
    }
    watching = null;
    spinCondition = null;
    spinCheckPeriod = 0;
    activity = Activity.NONE;
    cpu.chargeNothing();
    if (MachineTrace.HOOKS) {
      machine.trace().onSpin(this, spinSymbol, spinStartedAt, machine.sim().now());
    }
  }

  /** The stack charged for the current activity (-1 for none). */
  int chargeStack() {
    return switch (activity) {
      case WORK, SPIN, GUEST, IDLE -> activityStack;
      default -> -1;
    };
  }

  /** Whether the scheduler may switch this task out right now. */
  boolean preemptibleNow() {
    if (preemptCount > 0 || irqsDisabled || irqDepth > 0) {
      return false;
    }
    return switch (activity) {
      case IDLE, GUEST -> true;
      case WORK -> workUser || kernel.config().preemptibleKernel();
      case SPIN, NONE -> kernel.config().preemptibleKernel();
      default -> false;
    };
  }

  @Override
  public String toString() {
    return name;
  }
}

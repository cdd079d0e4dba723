package org.lockvisor.machine;

import java.util.ArrayDeque;
import org.lockvisor.core.sim.EventHandler;
import org.lockvisor.core.sim.EventQueue;

/**
 * A CPU of a kernel: a physical CPU of the host, or a guest's virtual CPU.
 *
 * <p>A CPU always has a current task (its idle task when nothing else runs). A physical CPU can
 * always run; a guest CPU can run only while its vCPU thread is current on a physical CPU that
 * can run and is in guest mode. When a guest CPU stops, its current task freezes in the middle
 * of whatever it was doing — working, holding a lock, spinning — and resumes when the vCPU
 * thread runs again: lock-holder and lock-waiter preemption emerge from this, they are not
 * parameters.
 *
 * <p>Rule: a task's interpreter runs only from an event of its own CPU or task, never nested
 * inside another task's op. Cross-CPU effects (interrupts, resched, resumption) go through
 * zero-delay events.
 *
 * <p>Above 30 methods on purpose: the context switch, interrupt delivery, CPU-time accounting,
 * spin traps and watchers share the CPU's current task, pending interrupts and accounting marks,
 * which are read on every simulated event; splitting them across objects would add a dereference
 * on the machine's hottest path. The public part is one-line read-outs used by schedulers,
 * locks and reports.
 */
public final class Cpu implements EventHandler, SpinWatch {
  static final int EV_SWITCH_DONE = 1;
  static final int EV_TICK = 2;
  static final int EV_IRQ = 3;
  static final int EV_RESCHED = 4;
  static final int EV_RESUME = 5;
  static final int EV_SPIN_TRAP = 6;

  final int id;
  final int index;
  final Kernel kernel;
  final Machine machine;
  final String name;
  Task current;
  Task idle;
  boolean powered;
  boolean needResched;

  // accounting
  private long chargeStart;
  private int chargeTask = -1;
  private int chargeStackId = -1;
  /** The spinner whose loop reads vcpu_is_preempted while {@link #chargeStackId} is its spin. */
  private Task chargeSpinChecks;

  // context switch in progress
  private boolean switching;
  private long switchRemaining;
  private long switchDue;
  private long switchHandle = EventQueue.NO_EVENT;
  private int switchStack;
  /** Leaving idle: the C-state exit still to run before the switch proper (charged to idle). */
  private long switchIdleRemaining;
  private int idleExitStack;
  /**
   * The task being switched out while its {@code on_cpu} is still set (until the switch
   * completes, finish_lock_switch); tracked only when the kernel's try_to_wake_up waits for it.
   */
  Task switchingOut;

  private final ArrayDeque<Program> pendingIrqs = new ArrayDeque<>(4);
  private long irqHandle = EventQueue.NO_EVENT;
  private long reschedHandle = EventQueue.NO_EVENT;
  private long resumeHandle = EventQueue.NO_EVENT;
  long tickHandle = EventQueue.NO_EVENT;
  /** A guest CPU's pending pause-loop / WFE trap of the current spin. */
  private long spinTrapHandle = EventQueue.NO_EVENT;

  /** Wakees queued on this CPU's wake list (3.0 TTWU_QUEUE), activated by the resched IPI. */
  final ArrayDeque<Task> wakeList = new ArrayDeque<>(4);

  /** For a guest CPU: the host thread that runs it. */
  VcpuTask vcpuTask;

  private TaskWatchers watchers;

  /** Scheduler-owned per-CPU runqueue data. */
  public Object rqData;

  // statistics
  long idleNs;
  long contextSwitches;
  long interrupts;

  Cpu(Machine machine, Kernel kernel, int id, int index, String name, boolean powered) {
    this.machine = machine;
    this.kernel = kernel;
    this.id = id;
    this.index = index;
    this.name = name;
    this.powered = powered;
  }

  public int id() {
    return id;
  }

  /** Index of this CPU within its kernel (the kernel's cpu number). */
  public int index() {
    return index;
  }

  public String name() {
    return name;
  }

  public Kernel kernel() {
    return kernel;
  }

  public Task current() {
    return current;
  }

  public Task idleTask() {
    return idle;
  }

  public boolean isIdle() {
    return current == idle;
  }

  public boolean needResched() {
    return needResched;
  }

  /**
   * The steal clock of this CPU as its kernel reads it: for a guest CPU, the time its vCPU thread
   * has spent runnable but not running on the host; 0 for a physical CPU.
   */
  public long stealClock() {
    return vcpuTask == null ? 0 : vcpuTask.stealNs();
  }

  /** True while this CPU executes instructions (physical, or vCPU in guest mode and on a pCPU). The interpreter's. */
  boolean canRun() {
    return powered && !switching;
  }

  boolean powered() {
    return powered;
  }

  public boolean isGuest() {
    return vcpuTask != null;
  }

  /** For a guest CPU, its vCPU thread on the host; null for a physical CPU. */
  public VcpuTask vcpuTask() {
    return vcpuTask;
  }

  public long contextSwitches() {
    return contextSwitches;
  }

  public long interrupts() {
    return interrupts;
  }

  boolean hasPendingInterrupts() {
    return !pendingIrqs.isEmpty();
  }

  boolean switching() {
    return switching;
  }

  private boolean tickPending;
  private Program tickProgram;

  boolean hasPendingTick() {
    return tickPending;
  }

  /** Raises the timer interrupt; at most one tick is pending at a time (they coalesce). */
  void raiseTick(Program handler) {
    tickPending = true;
    tickProgram = handler;
    pendingIrqs.add(handler);
    if (irqHandle == EventQueue.NO_EVENT) {
      irqHandle = machine.sim().schedule(0, this, EV_IRQ, 0);
    }
  }

  // ---------------------------------------------------------------------------------------
  // Accounting.

  void flushAccounting() {
    long now = machine.sim().now();
    if (powered && chargeStackId >= 0 && now > chargeStart) {
      long ns = now - chargeStart;
      Task spinner = chargeSpinChecks;
      long checks = spinner == null ? 0 : spinner.spinCheckShare(ns);
      int checkStack = spinner == null ? -1 : spinner.spinCheckStack;
      if (checks > 0 && checkStack >= 0) {
        // the vcpu_is_preempted reads of the spin loop, under the spin symbol
        machine.account().charge(id, chargeTask, checkStack, checks);
        ns -= checks;
      }
      if (ns > 0) {
        machine.account().charge(id, chargeTask, chargeStackId, ns);
      }
    }
    chargeStart = now;
  }

  void charge(Task t, int stack) {
    flushAccounting();
    chargeTask = t == null ? -1 : t.id;
    chargeStackId = t == null ? -1 : stack;
    chargeSpinChecks = t != null && stack >= 0 && t.activity == Activity.SPIN && t.spinCheckPeriod > 0
        && stack == t.activityStack ? t : null;
  }

  void chargeNothing() {
    flushAccounting();
    chargeStackId = -1;
    chargeSpinChecks = null;
  }

  /** Flushes pending accounting (end of a run, or before reading totals). */
  public void syncAccounting() {
    flushAccounting();
  }

  // ---------------------------------------------------------------------------------------
  // Running the current task.

  /** Arms the current task's activity after an op started it; never interprets. */
  void armCurrent() {
    if (!canRun()) {
      return;
    }
    Task t = current;
    flushAccounting();
    if (t.arm()) {
      charge(t, -1);
      // The spin ended at once (condition already true): the caller's interpreter goes on.
      return;
    }
    charge(t, t.chargeStack());
  }

  /** Resumes the current task from an event of this CPU (may interpret). */
  void resumeCurrent() {
    if (!canRun()) {
      return;
    }
    Task t = current;
    if (!pendingIrqs.isEmpty() && !t.irqsDisabled && t.irqDepth == 0) {
      deliverIrq();
      return;
    }
    flushAccounting();
    if (t.arm()) {
      charge(t, -1);
      t.interpret();
    } else {
      charge(t, t.chargeStack());
    }
  }

  void resumeSoon() {
    if (resumeHandle == EventQueue.NO_EVENT) {
      resumeHandle = machine.sim().schedule(0, this, EV_RESUME, 0);
    }
  }

  /** A guest CPU starts or stops executing as its vCPU thread enters or leaves guest mode. */
  void setPowered(boolean on) {
    if (on == powered) {
      return;
    }
    if (!on) {
      flushAccounting();
      if (switching) {
        machine.sim().cancel(switchHandle);
        switchHandle = EventQueue.NO_EVENT;
        if (switchIdleRemaining > 0) {
          switchIdleRemaining = Math.max(0, switchDue - machine.sim().now());
        } else {
          switchRemaining = Math.max(0, switchDue - machine.sim().now());
        }
      } else if (current != null) {
        current.freeze();
      }
      powered = false;
      chargeStackId = -1;
    } else {
      powered = true;
      chargeStart = machine.sim().now();
      if (switching) {
        armSwitch();
      } else {
        resumeSoon();
      }
    }
    if (watchers != null) {
      watchers.pokeAll();
    }
  }

  // ---------------------------------------------------------------------------------------
  // Context switch.

  void switchTo(Task next, long cost) {
    switchTo(next, cost, 0);
  }

  /**
   * Switches to {@code next}: {@code idleExitNs} of C-state exit first when leaving idle (idle
   * time, charged to the idle task, as the kernel's per-task accounting sees it), then
   * {@code cost} of context switch charged to {@code next}.
   */
  void switchTo(Task next, long cost, long idleExitNs) {
    Task prev = current;
    flushAccounting();
    if (prev != null) {
      if (!switching) {
        prev.freeze();
      }
    }
    machine.sim().cancel(switchHandle);
    switchHandle = EventQueue.NO_EVENT;
    long now = machine.sim().now();
    if (prev instanceof VcpuTask v) {
      v.kvmPreempted = prev.state == TaskState.RUNNING; // kvm_sched_out
      v.kvmPreemptedInKernel = v.guestInKernel(); // kvm_arch_vcpu_put (4.14+)
      if (v.kvmPreempted) {
        v.kvmReady = true;
        v.startWaiting(now);
      }
    }
    if (next instanceof VcpuTask v) {
      v.kvmPreempted = false; // kvm_sched_in
      v.kvmReady = false;
      v.stopWaiting(now);
    }
    Task wasSwitchingOut = switchingOut;
    switchingOut = kernel.ttwu.waitsOnCpu && prev != null && prev != idle ? prev : null;
    if (wasSwitchingOut != null && wasSwitchingOut != switchingOut) {
      wasSwitchingOut.notifyWatchers();
    }
    current = next;
    next.cpu = this;
    contextSwitches++;
    switching = true;
    switchRemaining = cost;
    switchIdleRemaining = prev == idle && idle != null ? idleExitNs : 0;
    switchStack = next.stackOf(next.currentStack(), machine.symSchedule());
    if (switchIdleRemaining > 0 && idleExitStack == 0) {
      idleExitStack = machine.symbols().push(idle.currentStack(), kernel.symIdle());
    }
    if (prev != null) {
      prev.notifyWatchers();
    }
    // on_cpu of two tasks changed, and a vCPU thread may have been switched in or out on the
    // host: spinners watching this CPU (owner on_cpu) or that vCPU (vcpu_is_preempted) re-check.
    pokeWatchers();
    if (prev instanceof VcpuTask v) {
      v.guestCpu.pokeWatchers();
    }
    if (next instanceof VcpuTask v) {
      v.guestCpu.pokeWatchers();
    }
    if (powered) {
      armSwitch();
    }
    if (next != idle && tickHandle == EventQueue.NO_EVENT) {
      kernel.armTick(this);
    }
    if (MachineTrace.HOOKS) {
      machine.trace().onSwitch(this, prev, next);
    }
  }

  private void armSwitch() {
    long d = switchIdleRemaining > 0 ? switchIdleRemaining : switchRemaining;
    charge(switchIdleRemaining > 0 ? idle : current, switchIdleRemaining > 0 ? idleExitStack : switchStack);
    switchDue = machine.sim().now() + d;
    switchHandle = machine.sim().schedule(d, this, EV_SWITCH_DONE, 0);
  }

  // ---------------------------------------------------------------------------------------
  // Interrupts and rescheduling.

  /** Raises an interrupt: its handler runs on this CPU's current task when interrupts allow. */
  public void raiseInterrupt(Program handler) {
    pendingIrqs.add(handler);
    if (vcpuTask != null) {
      vcpuTask.kick();
    }
    if (irqHandle == EventQueue.NO_EVENT) {
      irqHandle = machine.sim().schedule(0, this, EV_IRQ, 0);
    }
  }

  /** Delivers one pending interrupt now, if the current context accepts interrupts. */
  boolean deliverIrq() {
    if (!canRun() || pendingIrqs.isEmpty()) {
      return false;
    }
    Task t = current;
    if (t.irqsDisabled || t.irqDepth > 0) {
      return false;
    }
    flushAccounting();
    t.freeze();
    interrupts++;
    Program handler = pendingIrqs.poll();
    if (handler == tickProgram) {
      tickPending = false;
    }
    t.beginInterrupt(handler);
    charge(t, -1);
    t.interpret();
    return true;
  }

  /** At local_irq_enable: a pending interrupt starts on {@code t} without leaving its interpreter. */
  void takeInterruptInline(Task t) {
    if (pendingIrqs.isEmpty() || !canRun() || t.irqDepth > 0) {
      return;
    }
    interrupts++;
    Program handler = pendingIrqs.poll();
    if (handler == tickProgram) {
      tickPending = false;
    }
    t.beginInterrupt(handler);
    t.inlineIrq = true;
  }

  /** Called when an interrupt handler returned to the interrupted context of {@code t}. */
  void afterInterrupt(Task t) {
    if (!pendingIrqs.isEmpty() && irqHandle == EventQueue.NO_EVENT) {
      irqHandle = machine.sim().schedule(0, this, EV_IRQ, 0);
    }
    if (t.scheduleAfterIrq && t.irqDepth == 0) {
      // the schedule() the interrupted op asked for while the handler was pending (Task.scheduleNow)
      t.scheduleAfterIrq = false;
      kernel.schedule(this, false);
      return;
    }
    if (needResched && t.preemptibleNow()) {
      kernel.schedule(this, true);
      return;
    }
    if (t.activity != Activity.NONE) {
      armCurrent();
      if (t.activity == Activity.NONE) {
        // a restored spin whose condition became true: the interpreter loop continues
        return;
      }
    }
  }

  /** Sets need_resched and makes the CPU act on it (preempt, or poke a bailing spinner). */
  public void reschedule() {
    needResched = true;
    if (vcpuTask != null) {
      vcpuTask.kick();
    }
    if (reschedHandle == EventQueue.NO_EVENT) {
      reschedHandle = machine.sim().schedule(0, this, EV_RESCHED, 0);
    }
  }

  /** Acts on need_resched at a preemption point reached synchronously by the current task. */
  boolean preemptIfNeeded() {
    if (needResched && current.preemptibleNow()) {
      kernel.schedule(this, true);
      return true;
    }
    return false;
  }

  @Override
  public void onEvent(int kind, long arg) {
    switch (kind) {
      case EV_SWITCH_DONE -> {
        switchHandle = EventQueue.NO_EVENT;
        if (switchIdleRemaining > 0) {
          switchIdleRemaining = 0; // out of the C-state: the switch proper starts
          armSwitch();
          return;
        }
        flushAccounting();
        switching = false;
        chargeStackId = -1;
        current.notifyWatchers();
        if (switchingOut != null) {
          Task prev = switchingOut;
          switchingOut = null; // finish_lock_switch: prev->on_cpu = 0
          prev.notifyWatchers();
        }
        if (needResched && current.preemptibleNow() && kernel.scheduler().runnable(this) > 0) {
          kernel.schedule(this, true);
        } else {
          resumeCurrent();
        }
      }
      case EV_TICK -> {
        tickHandle = EventQueue.NO_EVENT;
        kernel.onTick(this);
      }
      case EV_IRQ -> {
        irqHandle = EventQueue.NO_EVENT;
        deliverIrq();
      }
      case EV_RESCHED -> {
        reschedHandle = EventQueue.NO_EVENT;
        if (!needResched || !canRun()) {
          return;
        }
        if (current.preemptibleNow()) {
          kernel.schedule(this, true);
        } else if (current.activity == Activity.SPIN) {
          current.poke(0);
        }
      }
      case EV_RESUME -> {
        resumeHandle = EventQueue.NO_EVENT;
        resumeCurrent();
      }
      case EV_SPIN_TRAP -> {
        spinTrapHandle = EventQueue.NO_EVENT;
        if (vcpuTask != null && canRun() && current.activity == Activity.SPIN) {
          vcpuTask.vm.spinTrapped(vcpuTask);
        }
      }
      default -> throw new IllegalStateException("unknown cpu event " + kind);
    }
  }

  /** Guest CPU: the current task (re)started spinning in guest mode; trap after {@code windowNs}. */
  void armSpinTrap(long windowNs) {
    machine.sim().cancel(spinTrapHandle);
    spinTrapHandle = machine.sim().schedule(windowNs, this, EV_SPIN_TRAP, 0);
  }

  /** The spin stopped, froze or was interrupted: the loop the hardware counted is over. */
  void cancelSpinTrap() {
    if (spinTrapHandle != EventQueue.NO_EVENT) {
      machine.sim().cancel(spinTrapHandle);
      spinTrapHandle = EventQueue.NO_EVENT;
    }
  }

  // ---------------------------------------------------------------------------------------
  // Watchers: spinners whose condition depends on this CPU running (vcpu_is_preempted).

  void addWatcher(Task t) {
    if (watchers == null) {
      watchers = new TaskWatchers();
    }
    watchers.add(t);
  }

  void pokeWatchers() {
    if (watchers != null) {
      watchers.pokeAll();
    }
  }

  void removeWatcher(Task t) {
    if (watchers != null) {
      watchers.remove(t);
    }
  }

  @Override
  public String toString() {
    return name;
  }
}

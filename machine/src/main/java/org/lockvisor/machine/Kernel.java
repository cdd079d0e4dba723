package org.lockvisor.machine;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;

import com.google.common.collect.ImmutableList;
import java.util.ArrayList;
import java.util.List;
import org.lockvisor.machine.config.HostActivity;
import org.lockvisor.machine.config.KernelConfig;

/**
 * One kernel: the host's, or a guest's. It owns CPUs, tasks, a scheduling policy and the
 * scheduler core (kernel/sched/core.c): {@code schedule()}, task activation on wakeup, the tick,
 * the reschedule IPI handler and the idle loop.
 *
 * <p>The mechanisms with state of their own live beside it: {@link Ttwu} ({@code try_to_wake_up},
 * wake lists, the reschedule IPI), {@link VcpuPreemptedReads} (pricing and counting {@code
 * vcpu_is_preempted} reads), {@link HostBackground}, {@link SchedStats}. What stays is more than
 * 30 methods on purpose: this is the kernel object every plugin, workload and experiment holds,
 * and most of its methods are one-line switches and read-outs of the kernel's configuration
 * (steal and irq time accounting, topology, host activity, the wakeup switches) that belong to
 * the kernel as a whole; moving them behind further objects would only lengthen every caller.
 */
public final class Kernel {
  final Machine machine;
  final String name;
  final KernelConfig config;
  final Scheduler scheduler;
  final Vm vm;
  final List<Cpu> cpus = new ArrayList<>();
  final List<Task> tasks = new ArrayList<>();
  private VcpuPreemptedHook vcpuPreempted = VcpuPreemptedHook.NEVER;
  private final Program tickHandler;
  private final int symTick;
  private final int symIdle;
  long tasksExited;
  /** try_to_wake_up, the wake lists and the reschedule IPI. */
  final Ttwu ttwu;
  private CpuTopology topology;
  private final SchedStats schedStats = new SchedStats();
  final VcpuPreemptedReads vcpuPreemptedReads;
  private HostActivity activity = HostActivity.OFF;
  private HostBackground background;
  private PendingSoftirq[] pendingSoftirqs = new PendingSoftirq[0];
  /**
   * {@code irq_exit} (kernel/softirq.c 3.0.27): {@code if (!in_interrupt() &&
   * local_softirq_pending()) invoke_softirq();} — each registered {@link PendingSoftirq} in turn
   * (phase i asks source i), its {@code __do_softirq} run on the interrupted task's stack inside
   * the interrupt frame, as the device interrupts' own softirqs are. Without a source it starts
   * nothing and costs nothing.
   */
  final Op irqExit = new Op() {
    @Override
    public int execute(Task t, int phase) {
      if (phase >= pendingSoftirqs.length) {
        return NEXT;
      }
      Program p = pendingSoftirqs[phase].onIrqExit(t.cpu);
      if (p != null) {
        t.call(p);
      }
      return AGAIN; // nothing started: asked again at once with the next source
    }

    @Override
    public String toString() {
      return "irq_exit";
    }
  };

  Kernel(Machine machine, String name, KernelConfig config, Scheduler scheduler, Vm vm) {
    this.machine = machine;
    this.name = name;
    this.config = config;
    this.scheduler = scheduler;
    this.vm = vm;
    this.vcpuPreemptedReads = new VcpuPreemptedReads(machine);
    this.symTick = machine.symbols().symbol("scheduler_tick", Machine.DOMAIN_KERNEL);
    // names from the arch profile (KernelSymbols): the idle loop and the tick's handler of this architecture
    var names = machine.kernelSymbols();
    this.symIdle = machine.symbols().symbol(vm == null ? names.hostIdle() : names.guestIdle(), Machine.DOMAIN_IDLE);
    this.ttwu = new Ttwu(this);
    this.tickHandler = Program.interruptHandler(vm == null ? names.hostTimerInterrupt() : names.guestTimerInterrupt())
        .op(new Op() {
          @Override
          public int execute(Task t, int phase) {
            if (phase == 0 && config.tickCostNs() > 0) {
              t.startWork(config.tickCostNs(), symTick, false);
              return AGAIN;
            }
            scheduler.tick(t.cpu, t.cpu.current == t && t.irqDepth > 0 ? t : t.cpu.current);
            return NEXT;
          }
        })
        // smp_apic_timer_interrupt (arch/x86/kernel/apic/apic.c 3.0.27): irq_enter;
        // local_apic_timer_interrupt; irq_exit — the tick leaves through irq_exit like any interrupt
        .op(irqExit)
        .build();
  }

  public String name() {
    return name;
  }

  public KernelConfig config() {
    return config;
  }

  public Scheduler scheduler() {
    return scheduler;
  }

  public Machine machine() {
    return machine;
  }

  /** The VM this kernel runs in, or null for the host. */
  public Vm vm() {
    return vm;
  }

  public boolean isGuest() {
    return vm != null;
  }

  public List<Cpu> cpus() {
    return ImmutableList.copyOf(cpus);
  }

  public Cpu cpu(int index) {
    return cpus.get(index);
  }

  public int cpuCount() {
    return cpus.size();
  }

  public List<Task> tasks() {
    return ImmutableList.copyOf(tasks);
  }

  public void setVcpuPreemptedHook(VcpuPreemptedHook hook) {
    this.vcpuPreempted = hook;
  }

  /** The pricing and count of this kernel's vcpu_is_preempted reads. */
  public VcpuPreemptedReads vcpuPreemptedReads() {
    return vcpuPreemptedReads;
  }

  private boolean stealTimeAccounting;

  /**
   * CONFIG_PARAVIRT_TIME_ACCOUNTING with a hypervisor that publishes steal time: the scheduler's
   * task clock ({@code rq->clock_task}) excludes the time the CPU's vCPU thread was not running,
   * so a guest task is not charged vruntime for it. Off by default (the clock includes steal).
   */
  public void setStealTimeAccounting(boolean on) {
    this.stealTimeAccounting = on;
  }

  public boolean stealTimeAccounting() {
    return stealTimeAccounting;
  }

  private boolean irqTimeAccounting;

  /**
   * CONFIG_IRQ_TIME_ACCOUNTING (kernel/sched.c 3.0: {@code irqtime_account_irq},
   * {@code update_rq_clock_task}): hardirq and softirq time is accounted per CPU and excluded from
   * the task clock, so a task's CPU time ({@code top}, {@code task_times}) no longer includes the
   * interrupts and softirqs that ran in its context. Off by default (the Kconfig default is n); the
   * machine records it, the plugins' per-thread CPU figures apply it.
   */
  public void setIrqTimeAccounting(boolean on) {
    this.irqTimeAccounting = on;
  }

  public boolean irqTimeAccounting() {
    return irqTimeAccounting;
  }

  /**
   * The guest's {@code vcpu_is_preempted(cpu)}: what the hypervisor tells this guest about the
   * vCPU behind {@code cpu}, under the semantics of the arch profile. Always false on the host.
   */
  public boolean vcpuIsPreempted(Cpu cpu) {
    VcpuTask v = cpu.vcpuTask;
    if (v == null) {
      return false;
    }
    boolean preempted = vcpuPreempted.isPreempted(v);
    if (preempted) {
      v.vm.count(YieldStats.Counter.PREEMPTED_FLAG_TRUE);
      if (v.onCpu() && !v.inUserspace) {
        v.vm.count(YieldStats.Counter.PREEMPTED_FLAG_TRUE_WHILE_LOADED);
      }
    } else {
      v.vm.count(YieldStats.Counter.PREEMPTED_FLAG_FALSE);
    }
    return preempted;
  }

  /** Whether two CPUs of this kernel share the last-level cache ({@code cpus_share_cache}). */
  public boolean sharesCache(Cpu a, Cpu b) {
    int llc = topology().llcCpus();
    return a.index / llc == b.index / llc;
  }

  /**
   * The topology this kernel's scheduling domains are built from: the one set with {@link
   * #setTopology}, else one LLC of {@code config.llcSize()} single-threaded cores.
   */
  public CpuTopology topology() {
    if (topology == null) {
      topology = CpuTopology.flat(config.llcSize());
    }
    return topology;
  }

  /**
   * Sets the topology the kernel sees (for a guest: what the hypervisor presents, vCPUs per
   * core/LLC/socket). Call before any task of this kernel is scheduled.
   */
  public void setTopology(CpuTopology topology) {
    checkArgument(topology != null, "topology must be set");
    checkState(tasksActivated == 0, "set the topology of %s before its tasks start", name);
    this.topology = topology;
  }

  /** Migrations by cause and runqueue lengths of this kernel. */
  public SchedStats schedStats() {
    return schedStats;
  }

  /**
   * Host only: background activity (tick phase, softirqs, kworkers) as {@link HostActivity}
   * says. Call once, before the simulation runs.
   */
  public void setHostActivity(HostActivity activity) {
    checkState(vm == null, "host activity applies to the host kernel, not to guest %s", name);
    checkState(background == null && this.activity == HostActivity.OFF, "host activity of %s is set already", name);
    checkArgument(activity != null, "host activity must be set");
    this.activity = activity;
    if (activity.hasLoad()) {
      background = new HostBackground(this, activity);
      background.start();
    }
  }

  public HostActivity hostActivity() {
    return activity;
  }

  /**
   * Registers a source of softirqs that stay pending on a CPU ({@link PendingSoftirq}): this
   * kernel's timer tick, its reschedule IPIs that ran a wake list and its background softirq
   * interrupts run them at their {@code irq_exit}. Call before the simulation runs.
   */
  public void addPendingSoftirq(PendingSoftirq source) {
    checkArgument(source != null, "pending softirq source must be set");
    PendingSoftirq[] a = java.util.Arrays.copyOf(pendingSoftirqs, pendingSoftirqs.length + 1);
    a[a.length - 1] = source;
    pendingSoftirqs = a;
  }

  /** Softirqs raised by the host background so far. */
  public long backgroundSoftirqs() {
    return background == null ? 0 : background.softirqs;
  }

  /** Kworker wakeups made by the host background so far. */
  public long backgroundKworkerWakeups() {
    return background == null ? 0 : background.kworkerWakeups;
  }

  // ---------------------------------------------------------------------------------------
  // Tasks.

  /** Creates a task running {@code program}, runnable at once on a CPU the scheduler picks. */
  public Task spawn(String taskName, Program program) {
    return spawn(taskName, program, -1);
  }

  /** Creates a task pinned to CPU index {@code pinnedCpu} (-1: any). */
  public Task spawn(String taskName, Program program, int pinnedCpu) {
    checkArgument(pinnedCpu < cpus.size(), "cpu %s does not exist in kernel %s with %s cpus", pinnedCpu, name, cpus.size());
    Task t = machine.newTask(this, taskName, program);
    t.pinnedCpu = pinnedCpu;
    tasks.add(t);
    wakeUpNew(t);
    return t;
  }

  /**
   * Creates a kernel thread as {@code kthread_run} does (kernel/kthread.c v4.4): the thread is
   * forked and placed by fork balancing ({@code wake_up_new_task}, as {@link #spawn}), runs {@code
   * kthread()} up to its {@code schedule()} in TASK_UNINTERRUPTIBLE (its creator waits for that),
   * and is then woken by {@code wake_up_process}: it enters its runqueue as a sleeper does
   * (CFS's {@code place_entity} without {@code initial}), not with a new task's fork debit. The
   * creation's own CPU time is not modelled. A module that creates several kthreads (locktorture's
   * writers) gets them on its runqueues as the kernel leaves them once each has been created.
   */
  public Task spawnKthread(String taskName, Program program) {
    Task t = machine.newTask(this, taskName, program);
    t.pinnedCpu = -1;
    tasks.add(t);
    Object running = machine.sim().currentHandler();
    Cpu parent = running instanceof Task p && p.kernel == this ? p.cpu
        : running instanceof Cpu c && c.kernel == this ? c : null;
    activate(t, scheduler.selectCpu(t, parent), true);
    return t;
  }

  /** Creates a task that starts asleep (state INTERRUPTIBLE), to be woken later. */
  public Task spawnSleeping(String taskName, Program program, int pinnedCpu) {
    Task t = machine.newTask(this, taskName, program);
    t.pinnedCpu = pinnedCpu;
    t.state = TaskState.INTERRUPTIBLE;
    t.cpu = cpus.get(Math.max(0, pinnedCpu));
    tasks.add(t);
    return t;
  }

  void adopt(Task t) {
    tasks.add(t);
  }

  void wakeUpNew(Task t) {
    t.state = TaskState.RUNNING;
    // wake_up_new_task balances from the parent's CPU (task_cpu(p) is copied at fork): the CPU
    // of the task (or the CPU) whose event is running now, when it belongs to this kernel
    Object running = machine.sim().currentHandler();
    Cpu parent = running instanceof Task p && p.kernel == this ? p.cpu
        : running instanceof Cpu c && c.kernel == this ? c : null;
    Cpu target = t.pinnedCpu >= 0 ? cpus.get(t.pinnedCpu) : scheduler.selectCpu(t, parent);
    activate(t, target, false); // wake_up_new_task: not a sleeper's wakeup (fork placement)
  }

  /**
   * Makes a sleeping task runnable on {@code target} (ttwu_do_activate) and checks wakeup
   * preemption. Costs are the caller's business. The wakeup path's own: a plugin wakes with {@link
   * Ops#wake}.
   */
  void activate(Task t, Cpu target) {
    activate(t, target, true);
  }

  private long tasksActivated;

  private void activate(Task t, Cpu target, boolean wakeup) {
    checkState(!t.onRq, "%s is already on a runqueue", t);
    tasksActivated++;
    t.state = TaskState.RUNNING;
    t.onRq = true;
    t.cpu = target;
    t.wakeups++;
    if (t instanceof VcpuTask v) {
      v.startWaiting(machine.sim().now());
    }
    scheduler.enqueue(target, t, wakeup);
    if (target.current == target.idle || scheduler.wakeupPreempt(target, target.current, t)) {
      target.reschedule();
    }
    if (MachineTrace.HOOKS) {
      machine.trace().onWake(t, target);
    }
  }

  /**
   * Records that the scheduler moved a queued, not running task to {@code cpu}'s runqueue (load
   * balancing's detach_task/attach_task: {@code set_task_cpu}).
   */
  public void moveQueued(Task t, Cpu cpu) {
    checkState(t.kernel == this && cpu.kernel == this, "%s moved across kernels to %s", t, cpu);
    checkState(t.onRq, "%s is not a queued task", t);
    t.cpu = cpu;
  }

  /** The CPU a waking task goes to, honouring its pinning. */
  public Cpu selectWakeCpu(Task t, Cpu waker) {
    return t.pinnedCpu >= 0 ? cpus.get(t.pinnedCpu) : scheduler.selectCpu(t, waker);
  }

  /**
   * Wakes {@code t} without modelling the waker's cost (used for kicks and device completions
   * raised by the model itself). Returns false if it was not sleeping.
   */
  public boolean wakeUpNow(Task t, Cpu waker) {
    if (t.state == TaskState.RUNNING || t.state == TaskState.DEAD) {
      return false;
    }
    if (t.onRq) {
      t.state = TaskState.RUNNING;
      return true;
    }
    activate(t, selectWakeCpu(t, waker));
    return true;
  }

  /**
   * Whether a wakeup that makes a task on another, running CPU preempt sends that CPU a
   * reschedule IPI (resched_curr -> smp_send_reschedule), priced like any IPI and taken by the
   * target as an interrupt. Off by default: the target then reacts at once and no IPI is priced.
   */
  public void setReschedIpiOnPreempt(boolean on) {
    ttwu.reschedIpiOnPreempt = on;
  }

  /**
   * Whether try_to_wake_up of a sleeping task that its CPU is still switching out waits until
   * the switch completes ({@code while (p->on_cpu) cpu_relax();} in 3.0 kernel/sched.c, on
   * architectures without {@code __ARCH_WANT_INTERRUPTS_ON_CTXSW} such as x86;
   * {@code smp_cond_load_acquire(&p->on_cpu, !VAL)} since 4.x). The waker spins, charged to
   * {@code try_to_wake_up}, for the rest of the wakee's context switch. Off by default: the
   * wakee is then off its CPU the moment it is switched out.
   */
  public void setTtwuWaitsOnCpu(boolean on) {
    ttwu.waitsOnCpu = on;
  }

  /**
   * A program each reschedule IPI runs on its target before scheduler_ipi: the interrupt
   * controller's accept and EOI (on PowerVM these are H_XIRR and H_EOI hcalls). Null: none.
   */
  public void setIpiAccept(Program accept) {
    ttwu.ipiAccept = accept;
  }

  /**
   * Sending one IPI from this kernel: an APIC write on a host, a VM exit (MSR_WRITE, or H_IPI on
   * PowerVM) in a guest without posted or PV IPIs, as the reschedule IPI pays it.
   */
  public Program ipiSendProgram() {
    return ttwu.ipiSendProgram();
  }

  /** The reschedule IPI handler (scheduler_ipi: activates the CPU's wake list). */
  Program reschedIpiHandler() {
    return ttwu.reschedIpiHandler;
  }

  /** try_to_wake_up outcomes: target running, on its runqueue, local, remote, queued; IPIs sent. */
  public TtwuStats ttwuStats() {
    return ttwu.stats();
  }

  /** try_to_wake_up calls that waited for the wakee's CPU to finish switching it out. */
  public long ttwuOnCpuWaits() {
    return ttwu.onCpuWaits;
  }

  /** Counters of try_to_wake_up outcomes. */
  public record TtwuStats(long running, long onRq, long local, long remote, long queued, long ipis) {}

  /** Resets statistics (end of warm-up). */
  public void resetStats() {
    ttwu.reset();
    vcpuPreemptedReads.reset();
    schedStats.reset(machine.sim().now());
  }

  // ---------------------------------------------------------------------------------------
  // schedule()

  /**
   * {@code yield_to(target, preempt=true)} from {@code current}, the task running the caller on
   * its CPU: -1 ({@code -ESRCH}) when the target is running or not runnable, 0 when the policy
   * did not boost it, 1 when it did; then the target's CPU is rescheduled if it is another one.
   * The caller calls {@link #schedule} itself (yield_to's own {@code schedule()}).
   */
  public int yieldTo(Task current, Task target) {
    if (target.kernel != this || target.onCpu() || target.state != TaskState.RUNNING || !target.onRq) {
      return -1;
    }
    if (!scheduler.yieldTo(current.cpu, current, target)) {
      return 0;
    }
    if (target.cpu != current.cpu) {
      target.cpu.reschedule();
    }
    return 1;
  }

  /**
   * __schedule() on {@code cpu}: puts the current task back (preempted or yielding) or takes it
   * off the runqueue (it set a sleeping state), picks the next task and switches to it.
   */
  public void schedule(Cpu cpu, boolean preempt) {
    Task prev = cpu.current;
    cpu.needResched = false;
    if (prev != cpu.idle) {
      if (prev.state == TaskState.RUNNING) {
        scheduler.putPrev(cpu, prev);
        if (preempt) {
          prev.involuntarySwitches++;
        }
      } else {
        prev.onRq = false;
        prev.voluntarySwitches++;
      }
    }
    Task next = scheduler.pickNext(cpu);
    if (next == null) {
      next = scheduler.balanceIdle(cpu);
    }
    if (next == null) {
      next = cpu.idle;
    }
    if (next == prev) {
      if (prev.activity != Activity.NONE) {
        cpu.armCurrent();
      }
      return;
    }
    cpu.switchTo(next, config.contextSwitchNs(), prev == cpu.idle ? config.idleExitNs() : 0);
    scheduler.switchedIn(cpu, next);
  }

  void exit(Task t) {
    t.state = TaskState.DEAD;
    tasksExited++;
    machine.onTaskExit(t);
    schedule(t.cpu, false);
  }

  // ---------------------------------------------------------------------------------------
  // Tick.

  void armTick(Cpu cpu) {
    long period = config.tickNs();
    if (activity.tickPhase() == HostActivity.TickPhase.LEGACY) {
      cpu.tickHandle = machine.sim().schedule(period, cpu, Cpu.EV_TICK, 0);
      return;
    }
    // tick_setup_sched_timer / tick_nohz_restart: the next jiffy boundary, plus this CPU's skew
    long phase = activity.tickPhase() == HostActivity.TickPhase.SKEWED
        ? (period / 2) / cpus.size() * cpu.index
        : 0;
    long now = machine.sim().now();
    long next = Math.floorDiv(now - phase, period) * period + phase + period;
    cpu.tickHandle = machine.sim().scheduleAt(next, cpu, Cpu.EV_TICK, 0);
  }

  void onTick(Cpu cpu) {
    if (cpu.current == cpu.idle && !cpu.switching()) {
      return; // NO_HZ idle: the tick stops; switching to a task re-arms it
    }
    armTick(cpu);
    if (!cpu.hasPendingTick()) {
      cpu.raiseTick(tickHandler);
    }
  }

  int symIdle() {
    return symIdle;
  }

  @Override
  public String toString() {
    return name;
  }
}

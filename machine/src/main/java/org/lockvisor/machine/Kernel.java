package org.lockvisor.machine;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;

import com.google.common.collect.ImmutableList;
import java.util.ArrayList;
import java.util.List;

/**
 * One kernel: the host's, or a guest's. It owns CPUs, tasks, a scheduling policy and the
 * scheduler core (kernel/sched/core.c): {@code schedule()}, task activation on wakeup, the tick,
 * the reschedule IPI handler and the idle loop.
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
  private final Program reschedIpiHandler;
  private final int symTick;
  private final int symIdle;
  private final int symReschedIpi;
  private final int symIpiSend;
  long tasksExited;
  /** try_to_wake_up outcome counters (per kernel). */
  long ttwuRunning;
  long ttwuOnRq;
  long ttwuLocal;
  long ttwuRemote;
  long ttwuQueued;
  long ttwuOnCpuWaits;
  long ipisSent;
  private Program ipiSendProgram;
  private boolean reschedIpiOnPreempt;
  private boolean ttwuWaitsOnCpu;
  private Program ipiAccept;
  private CpuTopology topology;
  private final SchedStats schedStats = new SchedStats();
  private HostActivity activity = HostActivity.OFF;
  private HostBackground background;

  Kernel(Machine machine, String name, KernelConfig config, Scheduler scheduler, Vm vm) {
    this.machine = machine;
    this.name = name;
    this.config = config;
    this.scheduler = scheduler;
    this.vm = vm;
    this.symTick = machine.symbols().symbol("scheduler_tick", Machine.DOMAIN_KERNEL);
    this.symIdle = machine.symbols().symbol(vm == null ? "intel_idle" : "default_idle", Machine.DOMAIN_IDLE);
    this.symReschedIpi = machine.symbols().symbol("scheduler_ipi", Machine.DOMAIN_KERNEL);
    this.symIpiSend = machine.symbols().symbol(
        vm == null ? "native_smp_send_reschedule" : "kvm_send_ipi", Machine.DOMAIN_KERNEL);
    Kernel self = this;
    this.tickHandler = Program.interruptHandler("apic_timer_interrupt")
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
        .build();
    this.reschedIpiHandler = Program.interruptHandler("reschedule_interrupt")
        .op(Ops.call(t -> self.ipiAccept))
        .op(new Op() {
          @Override
          public int execute(Task t, int phase) {
            self.drainWakeList(t.cpu);
            return NEXT;
          }
        })
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

  private long vcpuPreemptedCheckNs;
  private int vcpuPreemptedCheckSymbol = -1;
  private long vcpuPreemptedChecks;
  private long vcpuPreemptedCheckTimeNs;

  /**
   * What one {@code vcpu_is_preempted(cpu)} read costs in this kernel (the arch profile's {@code
   * VCPU_PREEMPTED_CHECK}; 0: nothing is read) and the function perf shows it in, or null where
   * the arch inlines the check into its caller (powerpc's {@code yield_count} load). Locks charge
   * it where the kernel runs the check: every read of a spin loop ({@link Task#startSpin(int,
   * SpinCondition, long, SpinWatch, long)}) and the one-off checks before spinning.
   */
  public void setVcpuPreemptedCheckCost(long ns, String function) {
    checkArgument(ns >= 0, "vcpu_is_preempted cost must not be negative: %s", ns);
    this.vcpuPreemptedCheckNs = ns;
    this.vcpuPreemptedCheckSymbol = function == null ? -1 : machine.symbol(function, Machine.DOMAIN_KERNEL);
  }

  /** The cost of one vcpu_is_preempted read (0 when unpriced). */
  public long vcpuPreemptedCheckNs() {
    return vcpuPreemptedCheckNs;
  }

  /** The symbol id of the arch's check function, or -1 where it is inlined. */
  public int vcpuPreemptedCheckSymbol() {
    return vcpuPreemptedCheckSymbol;
  }

  /**
   * The spin time between two vcpu_is_preempted reads of a loop whose iteration takes {@code
   * loopNs} besides the read and that reads once every {@code loopsPerCheck} iterations
   * ({@code loopsPerCheck * loopNs + cost}); 0 when {@code check} is off or reads are unpriced.
   */
  public long spinCheckPeriodNs(boolean check, long loopNs, int loopsPerCheck) {
    checkArgument(loopNs >= 0 && loopsPerCheck > 0, "bad spin loop: %s ns, a read every %s", loopNs, loopsPerCheck);
    return check && vcpuPreemptedCheckNs > 0 ? loopsPerCheck * Math.max(0, loopNs) + vcpuPreemptedCheckNs : 0;
  }

  /**
   * A one-off {@code vcpu_is_preempted} read by {@code t} outside a spin loop (the check before
   * spinning, {@code mutex_can_spin_on_owner}; the read that ends a loop at its first test): when
   * {@code check} is on and reads are priced, starts the read's work, charged to the arch's check
   * function (or to {@code callerSymbol} where the arch inlines it), counts it and returns true
   * (the calling op returns {@link Op#AGAIN} and goes on at its next step); else false, nothing
   * charged.
   */
  public boolean startVcpuPreemptedCheck(Task t, boolean check, int callerSymbol) {
    if (!check || vcpuPreemptedCheckNs <= 0) {
      return false;
    }
    countVcpuPreemptedChecks(1, vcpuPreemptedCheckNs);
    t.startWork(vcpuPreemptedCheckNs, vcpuPreemptedCheckSymbol >= 0 ? vcpuPreemptedCheckSymbol : callerSymbol, false);
    return true;
  }

  /** Counts {@code n} vcpu_is_preempted reads that took {@code ns} of CPU time. */
  public void countVcpuPreemptedChecks(long n, long ns) {
    vcpuPreemptedChecks += n;
    vcpuPreemptedCheckTimeNs += ns;
  }

  /** vcpu_is_preempted reads since the last {@link #resetStats}. */
  public long vcpuPreemptedChecks() {
    return vcpuPreemptedChecks;
  }

  /** CPU time of those reads. */
  public long vcpuPreemptedCheckTimeNs() {
    return vcpuPreemptedCheckTimeNs;
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
    return cpu.vcpuTask != null && vcpuPreempted.isPreempted(cpu.vcpuTask);
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
   * preemption. Costs are the caller's business.
   */
  public void activate(Task t, Cpu target) {
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

  /** Queues a wakee on {@code target}'s wake list; true if an IPI must be sent (list was empty). */
  boolean queueWake(Task t, Cpu target) {
    boolean wasEmpty = target.wakeList.isEmpty();
    t.cpu = target;
    target.wakeList.add(t);
    return wasEmpty;
  }

  void drainWakeList(Cpu cpu) {
    Task t;
    while ((t = cpu.wakeList.poll()) != null) {
      if (!t.onRq && t.state != TaskState.DEAD) {
        activate(t, cpu);
      }
    }
  }

  /**
   * Whether a wakeup that makes a task on another, running CPU preempt sends that CPU a
   * reschedule IPI (resched_curr -> smp_send_reschedule), priced like any IPI and taken by the
   * target as an interrupt. Off by default: the target then reacts at once and no IPI is priced.
   */
  public void setReschedIpiOnPreempt(boolean on) {
    this.reschedIpiOnPreempt = on;
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
    this.ttwuWaitsOnCpu = on;
  }

  boolean ttwuWaitsOnCpu() {
    return ttwuWaitsOnCpu;
  }

  boolean reschedIpiOnPreempt() {
    return reschedIpiOnPreempt;
  }

  /**
   * A program each reschedule IPI runs on its target before scheduler_ipi: the interrupt
   * controller's accept and EOI (on PowerVM these are H_XIRR and H_EOI hcalls). Null: none.
   */
  public void setIpiAccept(Program accept) {
    this.ipiAccept = accept;
  }

  /** The reschedule IPI handler (scheduler_ipi: activates the CPU's wake list). */
  public Program reschedIpiHandler() {
    return reschedIpiHandler;
  }

  int symIpiSend() {
    return symIpiSend;
  }

  /** Sending a reschedule IPI: a plain APIC write on the host, a VM exit in a guest without PV IPIs. */
  Program ipiSendProgram() {
    if (ipiSendProgram == null) {
      if (vm != null && config.ipiExits() && vm.partitionFirmware()) {
        // PowerVM: the IPI is the H_IPI hcall (XICS emulation in PHYP)
        Program handler = Program.named("H_IPI").op(Vm.hypervisorWork(machine, config.ipiSendNs(), "H_IPI")).build();
        ipiSendProgram = Program.named("smp_muxed_ipi_message_pass").op(Ops.vmExit("H_IPI", handler)).build();
      } else if (vm != null && config.ipiExits()) {
        Program handler = Program.named("handle_wrmsr").work(config.ipiSendNs(), "kvm_apic_send_ipi").build();
        ipiSendProgram = Program.named("native_smp_send_reschedule").op(Ops.vmExit("MSR_WRITE", handler)).build();
      } else {
        ipiSendProgram = Program.named("native_smp_send_reschedule")
            .work(config.ipiSendNs(), vm == null ? "x2apic_send_IPI" : "kvm_send_ipi").build();
      }
    }
    return ipiSendProgram;
  }

  /** try_to_wake_up outcomes: target running, on its runqueue, local, remote, queued; IPIs sent. */
  public TtwuStats ttwuStats() {
    return new TtwuStats(ttwuRunning, ttwuOnRq, ttwuLocal, ttwuRemote, ttwuQueued, ipisSent);
  }

  /** try_to_wake_up calls that waited for the wakee's CPU to finish switching it out. */
  public long ttwuOnCpuWaits() {
    return ttwuOnCpuWaits;
  }

  /** Counters of try_to_wake_up outcomes. */
  public record TtwuStats(long running, long onRq, long local, long remote, long queued, long ipis) {}

  /** Resets statistics (end of warm-up). */
  public void resetStats() {
    ttwuRunning = ttwuOnRq = ttwuLocal = ttwuRemote = ttwuQueued = ipisSent = ttwuOnCpuWaits = 0;
    vcpuPreemptedChecks = vcpuPreemptedCheckTimeNs = 0;
    schedStats.reset(machine.sim().now());
  }

  int symReschedIpi() {
    return symReschedIpi;
  }

  // ---------------------------------------------------------------------------------------
  // schedule()

  /**
   * __schedule() on {@code cpu}: puts the current task back (preempted or yielding) or takes it
   * off the runqueue (it set a sleeping state), picks the next task and switches to it.
   */
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

package org.lockvisor.scheduler.builtin;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;

import java.util.ArrayDeque;
import org.lockvisor.core.sim.EventHandler;
import org.lockvisor.core.sim.EventQueue;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.machine.Cpu;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Scheduler;
import org.lockvisor.machine.Task;
import org.lockvisor.machine.VcpuTask;

/**
 * The PowerVM hypervisor (PHYP) dispatching the virtual processors (VPs) of shared-processor
 * LPARs on the physical processors of the shared pool. Used as the <em>host</em> kernel's
 * policy: the host kernel stands for the hypervisor, its vCPU threads are the VPs.
 *
 * <p>What it models (IBM PowerVM shared-processor documentation; the guest-visible side is the
 * lppaca yield_count read by {@code vcpu_is_preempted} in arch/powerpc):
 *
 * <ul>
 *   <li>A dispatch window (10 ms by default) aligned at multiples of its length from time 0.
 *   <li>Each LPAR (VM) has an entitled capacity in processor units, spread equally over its
 *       VPs: a VP is entitled to {@code units / VPs × window} of physical processor time per
 *       window (at most one full window). Entitlements refill at every window boundary; unused
 *       entitlement does not carry over.
 *   <li>A dispatched VP runs until it has used its entitlement for the window or cedes
 *       (H_CEDE: the guest idles, its vCPU thread sleeps); on exhaustion it is preempted if
 *       another VP is waiting on that processor.
 *   <li>VPs with entitlement left are dispatched before VPs without (FIFO within each class).
 *       Uncapped LPARs may run on capacity nobody entitled claims (left over by ceded or
 *       exhausted-and-alone VPs); capped VPs that used their entitlement wait for the next
 *       window even if the processor idles. A waking entitled VP preempts a VP that runs on
 *       leftover capacity.
 *   <li>The shared pool: a processor that picks a VP, or whose VP runs out of entitlement, takes
 *       an entitled unpinned VP waiting on another processor before it runs anyone on leftover
 *       capacity; a processor going idle takes any waiting unpinned VP (entitled ones first). A
 *       VP that wakes goes to its previous processor if idle, else to any idle processor, else
 *       (if entitled) to one running a VP on leftover capacity, else to its previous one.
 * </ul>
 *
 * <p>{@code H_CONFER} to a target ({@link #yieldTo}) dispatches a preempted target VP next on
 * the conferring processor with the caller's remaining entitlement; {@code H_PROD} ({@code
 * Vm.prod}) makes a ceded VP dispatchable like any wakeup.
 *
 * <p>SMT gang dispatch ({@code smt} 2, 4 or 8; default 1 = one guest CPU per VP, the model
 * above unchanged): on POWER8 a shared-processor VP is a whole core and the guest sees its SMT
 * threads as {@code smt} CPUs ({@code ppc64_cpu --smt}); PHYP dispatches and preempts them
 * together. Linux says so in arch/powerpc/include/asm/paravirt.h {@code vcpu_is_preempted} (v5.11+,
 * Srikar Dronamraju, comment reworded by Nathan Lynch 2021): "The PowerVM hypervisor dispatches
 * VMs on a whole core basis. So we know that a thread sibling of the local CPU cannot have been
 * preempted by the hypervisor, even if it has called H_CONFER, which will set the yield bit."
 * The yield bit itself is per thread ({@code lppaca_of(cpu).yield_count}, "if bit 0 is set, the
 * cpu has been ceded, conferred, or preempted"), so a ceded thread of a dispatched VP reads as
 * preempted while its running siblings do not: in the machine a ceded thread's vCPU thread
 * sleeps and a dispatched one is on a host CPU, which is what {@code NOT_DISPATCHED} reads. The
 * same-core shortcut of v5.11+ is not modelled (the R3 kernels predate it). With smt > 1 the
 * host's CPUs are hardware threads, {@code smt} per core, and guest vCPUs {@code smt·i ..
 * smt·i+smt-1} form VP i: a VP owns a whole core while dispatched (dispatched when any of its
 * threads is runnable, its ceded threads' hardware threads idle with it, ceding when all its
 * threads have ceded), entitlement is per VP ({@code units / VPs × window}) and charged by the
 * time the VP owns the core, and exhaustion or an entitled VP's wakeup onto a leftover-capacity
 * VP preempts every thread of the VP at once. Simplification of this mode: each VP has a fixed
 * home core (VPs placed round robin over the cores as they first appear), so there is no
 * shared-pool migration between cores; only vCPU threads may run on the host.
 *
 * <p>Simplifications: leftover capacity is handed out in FIFO order at exhaustion points and
 * window boundaries, not in proportion to uncapped weights (equal weights give the same long-run
 * shares, not the same per-window shares); no home-node/chip affinity, no dispatch latency; a
 * VP's time is charged while it is
 * dispatched, whether in the guest or in the hypervisor on its behalf. Host tasks that are not
 * vCPU threads (hypervisor work) are never exhausted. Per-LPAR entitlements can be set with
 * {@link #entitle(String, double)} before the VM is created.
 *
 * <p>Gang mode: {@link PowervmGang}; entitlement arithmetic: {@link PowervmVp}. Above 30 methods
 * on purpose: the {@code Scheduler} SPI and the dispatcher's window, timer and pool steps share state.
 */
public final class PowervmDispatchScheduler implements Scheduler, EventHandler {
  private static final int EV_WINDOW = -1;

  private final long windowNs;
  private final boolean capped;
  private final int smt;
  /** The window state the gang reads too: its length, the entitlements, its boundary timer. */
  private final PowervmWindow window;

  private Kernel kernel;
  private PowervmGang gang; // smt > 1 only
  private Simulation sim;
  private PowervmRq[] rqs;

  /**
   * @param windowNs the dispatch window
   * @param processorUnits entitled capacity of each LPAR in processor units, spread over its VPs;
   *     0 or less entitles every VP to a whole processor
   * @param capped whether LPARs are capped (no use of leftover capacity)
   */
  public PowervmDispatchScheduler(long windowNs, double processorUnits, boolean capped) {
    this(windowNs, processorUnits, capped, 1);
  }

  /**
   * @param smt hardware threads per virtual processor (1, 2, 4 or 8): with more than 1, the
   *     host's CPUs are the hardware threads of {@code cpuCount / smt} physical cores and the
   *     guest's vCPUs are grouped into VPs of {@code smt} consecutive threads, dispatched on a
   *     core together (gang dispatch, see the class comment)
   */
  public PowervmDispatchScheduler(long windowNs, double processorUnits, boolean capped, int smt) {
    checkArgument(smt == 1 || smt == 2 || smt == 4 || smt == 8, "smt must be 1, 2, 4 or 8: %s", smt);
    this.smt = smt;
    checkArgument(windowNs > 0, "dispatch window must be positive: %s", windowNs);
    checkArgument(!Double.isNaN(processorUnits), "entitlement must be a number");
    this.windowNs = windowNs;
    this.window = new PowervmWindow(windowNs, processorUnits, this, EV_WINDOW);
    this.capped = capped;
  }

  /** Sets the entitled capacity of the LPAR (VM) named {@code vmName}; call before creating it. */
  public PowervmDispatchScheduler entitle(String vmName, double processorUnits) {
    checkArgument(processorUnits > 0, "entitlement of [%s] must be positive: %s", vmName, processorUnits);
    window.entitle(vmName, processorUnits);
    return this;
  }

  public long windowNs() {
    return windowNs;
  }

  public boolean capped() {
    return capped;
  }

  /** Hardware threads per virtual processor. */
  public int smt() {
    return smt;
  }

  /** The entitlement of {@code task} per window (ns); {@code Long.MAX_VALUE} if unlimited. */
  public long entitlementNs(Task task) {
    if (smt > 1) {
      return gang.thread(task).vp.entitledNs;
    }
    return vp(task).entitledNs;
  }

  /** Entitlement {@code task} has left in the current window (ns). */
  public long remainingNs(Task task) {
    if (smt > 1) {
      PowervmVp g = gang.thread(task).vp;
      g.refresh(sim.now(), windowNs);
      return gang.owns(g) ? g.currentRemaining(sim.now(), windowNs) : g.remainingNs;
    }
    PowervmVp vp = vp(task);
    vp.refresh(sim.now(), windowNs);
    return rqs[vp.cpuIndex].curr == vp ? vp.currentRemaining(sim.now(), windowNs) : vp.remainingNs;
  }

  @Override
  public void init(Kernel k) {
    checkState(kernel == null, "a PowervmDispatchScheduler serves one kernel; create one per kernel");
    checkArgument(!k.isGuest(), "powervm-dispatch dispatches virtual processors: use it for the host kernel");
    this.kernel = k;
    this.sim = k.machine().sim();
    rqs = new PowervmRq[k.cpuCount()];
    for (int i = 0; i < rqs.length; i++) {
      rqs[i] = new PowervmRq(i);
      k.cpu(i).rqData = rqs[i];
    }
    if (smt > 1) {
      gang = new PowervmGang(window, this, k, smt, capped);
    }
  }

  // ---------------------------------------------------------------------------------------
  // Scheduler SPI.

  @Override
  public void enqueue(Cpu cpu, Task task, boolean wakeup) {
    if (smt > 1) {
      gang.enqueue(cpu, task);
      return;
    }
    PowervmRq rq = rqs[cpu.index()];
    PowervmVp vp = vp(task);
    vp.refresh(sim.now(), windowNs);
    vp.cpuIndex = rq.index;
    queue(rq, vp);
    armWindow();
  }

  @Override
  public void dequeue(Cpu cpu, Task task) {
    if (smt > 1) {
      gang.dequeue(cpu, task);
      return;
    }
    PowervmRq rq = rqs[cpu.index()];
    PowervmVp vp = vp(task);
    checkState(rq.ready.remove(vp) || rq.throttled.remove(vp), "%s is not queued on %s", task, cpu);
  }

  @Override
  public void putPrev(Cpu cpu, Task prev) {
    if (smt > 1) {
      gang.putPrev(cpu, prev);
      return;
    }
    PowervmRq rq = rqs[cpu.index()];
    checkState(rq.curr != null && rq.curr.task == prev, "%s put back on %s but current is %s", prev, cpu, rq.curr);
    PowervmVp vp = rq.curr;
    vp.charge(sim.now(), windowNs);
    rq.curr = null;
    cancelExhaust(rq);
    queue(rq, vp);
  }

  @Override
  public Task pickNext(Cpu cpu) {
    if (smt > 1) {
      return gang.pickNext(cpu);
    }
    PowervmRq rq = rqs[cpu.index()];
    long now = sim.now();
    if (rq.curr != null) {
      rq.curr.charge(now, windowNs); // ceded (slept) or exited
      rq.curr = null;
    }
    cancelExhaust(rq);
    if (rq.conferred != null) {
      // H_CONFER: the holder's VP runs next on the conferring processor
      PowervmVp c = rq.conferred;
      rq.conferred = null;
      dispatch(rq, c, now);
      return c.task;
    }
    PowervmVp next = firstEntitled(rq.ready, now);
    if (next != null) {
      rq.ready.remove(next);
    } else {
      next = pullEntitled(rq, now);
      if (next == null && !capped) {
        next = rq.ready.pollFirst(); // leftover capacity
      }
    }
    if (next == null) {
      // capped VPs without entitlement wait in 'throttled', so 'ready' holds only runnable ones
      checkState(rq.ready.isEmpty(), "processor %s: ready VPs %s but none eligible", rq.index, rq.ready);
      return null;
    }
    dispatch(rq, next, now);
    return next.task;
  }

  @Override
  public Cpu selectCpu(Task task, Cpu wakerCpu) {
    if (smt > 1) {
      PowervmHwThread t = gang.thread(task);
      return kernel.cpu(t.vp.cpuIndex * smt + t.slot); // the VP's core, the thread's slot
    }
    if (task.pinnedCpu() >= 0) {
      return kernel.cpu(task.pinnedCpu());
    }
    Cpu prev = task.cpu();
    if (prev != null && prev.kernel() == kernel && idle(prev)) {
      return prev;
    }
    Cpu fewest = null;
    Cpu leftover = null;
    long now = sim.now();
    boolean entitled = vp(task).remaining(now, windowNs) > 0;
    for (int i = 0; i < rqs.length; i++) {
      Cpu c = kernel.cpu(i);
      if (idle(c)) {
        return c;
      }
      if (fewest == null || load(rqs[i]) < load(rqs[fewest.index()])) {
        fewest = c;
      }
      PowervmVp curr = rqs[i].curr;
      if (entitled && leftover == null && curr != null && curr.currentRemaining(now, windowNs) == 0) {
        leftover = c; // wakeup preemption will give it to the entitled VP
      }
    }
    if (leftover != null) {
      return leftover;
    }
    return prev != null && prev.kernel() == kernel ? prev : fewest;
  }

  @Override
  public boolean wakeupPreempt(Cpu cpu, Task current, Task woken) {
    if (smt > 1) {
      return false; // gangEnqueue hands the core over itself
    }
    PowervmRq rq = rqs[cpu.index()];
    if (rq.curr == null || rq.curr.task != current) {
      return false;
    }
    long now = sim.now();
    rq.curr.charge(now, windowNs);
    PowervmVp w = vp(woken);
    w.refresh(now, windowNs);
    return w.remainingNs > 0 && rq.curr.remainingNs == 0;
  }

  @Override
  public void tick(Cpu cpu, Task current) {} // dispatching follows the window and entitlement timers

  @Override
  public int runnable(Cpu cpu) {
    if (smt > 1) {
      return gang.pickable(cpu.index()) ? 1 : 0;
    }
    PowervmRq rq = rqs[cpu.index()];
    return rq.ready.size() + (rq.conferred != null ? 1 : 0);
  }

  /**
   * The dispatcher's side of {@code H_CONFER} to a target processor (arch/powerpc/lib/locks.c
   * 4.8 {@code __spin_yield}: {@code plpar_hcall_norets(H_CONFER, get_hard_smp_processor_id(
   * holder_cpu), yield_count)}): the preempted target VP leaves the queue it waits in and is
   * dispatched next on the caller's processor, with the caller's remaining entitlement for the
   * window added to its own (the caller confers its cycles). Not modelled with {@code smt > 1}
   * (gang mode answers false: the caller just gives up the processor).
   */
  @Override
  public boolean yieldTo(Cpu cpu, Task current, Task target) {
    if (smt > 1) {
      return false;
    }
    PowervmVp t = vp(target);
    PowervmRq from = rqs[t.cpuIndex];
    if (!from.ready.remove(t) && !from.throttled.remove(t)) {
      return false;
    }
    long now = sim.now();
    PowervmRq rq = rqs[cpu.index()];
    t.refresh(now, windowNs);
    if (rq.curr != null && rq.curr.task == current) {
      rq.curr.charge(now, windowNs);
      if (t.entitledNs != PowervmVp.UNLIMITED && rq.curr.entitledNs != PowervmVp.UNLIMITED) {
        t.remainingNs += rq.curr.remainingNs;
        rq.curr.remainingNs = 0;
      }
    }
    t.cpuIndex = rq.index;
    rq.conferred = t;
    kernel.moveQueued(target, cpu);
    confersDispatched++;
    return true;
  }

  private long confersDispatched;

  /** H_CONFER calls that dispatched the target VP on the caller's processor. */
  public long confersDispatched() {
    return confersDispatched;
  }

  @Override
  public int throttled(Cpu cpu) {
    if (smt > 1) {
      // queued threads of VPs that do not own the core: runnable for the machine, not pickable
      return gang.queuedAt(cpu.index()) - (gang.pickable(cpu.index()) ? 1 : 0);
    }
    return rqs[cpu.index()].throttled.size();
  }

  @Override
  public Task balanceIdle(Cpu cpu) {
    if (smt > 1) {
      return null; // a VP's threads stay on its home core (see the class comment)
    }
    long now = sim.now();
    PowervmVp pick = null;
    PowervmRq from = null;
    for (int pass = 0; pass < 2 && pick == null; pass++) {
      for (PowervmRq rq : rqs) {
        if (rq.index == cpu.index()) {
          continue;
        }
        for (PowervmVp vp : rq.ready) {
          if (vp.task.pinnedCpu() < 0 && (pass == 1 || vp.remaining(now, windowNs) > 0)) {
            pick = vp;
            from = rq;
            break;
          }
        }
        if (pick != null) {
          break;
        }
      }
    }
    if (pick == null) {
      return null;
    }
    from.ready.remove(pick);
    PowervmRq rq = rqs[cpu.index()];
    pick.cpuIndex = rq.index;
    dispatch(rq, pick, now);
    return pick.task;
  }

  // ---------------------------------------------------------------------------------------
  // Timers: the window boundary (kind EV_WINDOW) and per-processor entitlement expiry (kind =
  // processor index, arg = task id).

  @Override
  public void onEvent(int kind, long arg) {
    long now = sim.now();
    if (kind == EV_WINDOW) {
      window.fired();
      if (smt > 1) {
        gang.window(now);
      } else {
        onWindow(now);
      }
      return;
    }
    if (smt > 1) {
      gang.exhaust(kind, arg, now);
      return;
    }
    PowervmRq rq = rqs[kind];
    rq.exhaustHandle = EventQueue.NO_EVENT;
    if (rq.curr == null || rq.curr.task.id() != arg) {
      return;
    }
    rq.curr.charge(now, windowNs);
    if (rq.curr.remainingNs > 0) {
      armExhaust(rq); // a late timer (cannot happen with exact charging, but stay safe)
      return;
    }
    rq.exhausted++;
    if (capped || !rq.ready.isEmpty() || entitledWaitingElsewhere(rq, now)) {
      kernel.cpu(rq.index).reschedule();
    }
  }

  private void onWindow(long now) {
    boolean active = false;
    for (PowervmRq rq : rqs) {
      if (rq.curr != null) {
        rq.curr.charge(now, windowNs); // refills: the boundary is now
        armExhaust(rq);
        active = true;
      }
      if (!rq.throttled.isEmpty()) {
        while (!rq.throttled.isEmpty()) {
          PowervmVp vp = rq.throttled.pollFirst();
          vp.refresh(now, windowNs);
          rq.ready.addLast(vp);
        }
        Cpu c = kernel.cpu(rq.index);
        if (c.isIdle()) {
          c.reschedule();
        }
      }
      active |= !rq.ready.isEmpty();
    }
    if (active) {
      armWindow();
    }
  }

  void armWindow() {
    window.arm(sim);
  }

  private void armExhaust(PowervmRq rq) {
    cancelExhaust(rq);
    PowervmVp vp = rq.curr;
    if (vp == null || vp.entitledNs == PowervmVp.UNLIMITED || vp.remainingNs == 0) {
      return;
    }
    rq.exhaustHandle = sim.schedule(vp.remainingNs, this, rq.index, vp.task.id());
  }

  private void cancelExhaust(PowervmRq rq) {
    if (rq.exhaustHandle != EventQueue.NO_EVENT) {
      sim.cancel(rq.exhaustHandle);
      rq.exhaustHandle = EventQueue.NO_EVENT;
    }
  }

  // ---------------------------------------------------------------------------------------
  // Entitlement bookkeeping.

  private void dispatch(PowervmRq rq, PowervmVp vp, long now) {
    vp.refresh(now, windowNs);
    rq.curr = vp;
    vp.runStart = now;
    armExhaust(rq);
    armWindow();
  }

  private void queue(PowervmRq rq, PowervmVp vp) {
    if (capped && vp.remaining(sim.now(), windowNs) == 0) {
      rq.throttled.addLast(vp);
    } else {
      rq.ready.addLast(vp);
    }
  }

  /** The first VP of {@code queue} with entitlement left, or null. */
  private PowervmVp firstEntitled(ArrayDeque<PowervmVp> queue, long now) {
    return window.firstEntitled(queue, now);
  }

  /**
   * The shared pool: takes an entitled, unpinned VP waiting on another processor (lowest index
   * first) for {@code rq}'s processor; null if there is none.
   */
  private PowervmVp pullEntitled(PowervmRq rq, long now) {
    for (PowervmRq other : rqs) {
      if (other == rq) {
        continue;
      }
      for (PowervmVp vp : other.ready) {
        if (vp.task.pinnedCpu() < 0 && vp.remaining(now, windowNs) > 0) {
          other.ready.remove(vp); // returns at once: the iteration does not go on
          vp.cpuIndex = rq.index;
          return vp;
        }
      }
    }
    return null;
  }

  private boolean entitledWaitingElsewhere(PowervmRq rq, long now) {
    for (PowervmRq other : rqs) {
      if (other == rq) {
        continue;
      }
      for (PowervmVp vp : other.ready) {
        if (vp.task.pinnedCpu() < 0 && vp.remaining(now, windowNs) > 0) {
          return true;
        }
      }
    }
    return false;
  }

  private boolean idle(Cpu c) {
    PowervmRq rq = rqs[c.index()];
    return c.isIdle() && rq.curr == null && rq.ready.isEmpty();
  }

  private static int load(PowervmRq rq) {
    return rq.ready.size() + (rq.curr != null ? 1 : 0);
  }

  private PowervmVp vp(Task t) {
    if (t.schedData instanceof PowervmVp vp) {
      return vp;
    }
    checkState(t.kernel() == kernel, "%s belongs to kernel %s, not %s", t, t.kernel(), kernel);
    long entitled = PowervmVp.UNLIMITED;
    if (t instanceof VcpuTask v) {
      entitled = entitledNs(v.vm().name(), v.vm().guest().cpuCount());
    }
    PowervmVp vp = new PowervmVp(t, entitled);
    t.schedData = vp;
    return vp;
  }

  /** The entitlement per window of each of {@code vps} VPs of LPAR {@code vmName} ({@link PowervmWindow#entitledNs}). */
  long entitledNs(String vmName, int vps) {
    return window.entitledNs(vmName, vps);
  }

  /** Times {@code cpu}'s dispatched VP ran out of entitlement. */
  public long exhaustions(Cpu cpu) {
    if (smt > 1) {
      return gang.exhaustions(cpu.index());
    }
    return rqs[cpu.index()].exhausted;
  }
}

package org.lockvisor.scheduler.builtin;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
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
 */
public final class PowervmDispatchScheduler implements Scheduler, EventHandler {
  private static final int EV_WINDOW = -1;
  private static final long UNLIMITED = Long.MAX_VALUE;

  private final long windowNs;
  private final double defaultUnits;
  private final boolean capped;
  private final int smt;
  private final Map<String, Double> unitsByVm = new HashMap<>(); // lookups only, never iterated

  private Kernel kernel;
  private Core[] cores; // smt > 1 only
  private int[] queuedAt; // smt > 1: queued threads per host CPU (hardware thread)
  private HwThread[] running; // smt > 1: the thread each host CPU runs, or null
  private final Map<String, Vp[]> vpsByVm = new HashMap<>(); // smt > 1; lookups only
  private int homes; // smt > 1: VPs placed so far
  private Simulation sim;
  private Rq[] rqs;
  private long windowHandle = EventQueue.NO_EVENT;

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
    this.defaultUnits = processorUnits;
    this.capped = capped;
  }

  /** Sets the entitled capacity of the LPAR (VM) named {@code vmName}; call before creating it. */
  public PowervmDispatchScheduler entitle(String vmName, double processorUnits) {
    checkArgument(processorUnits > 0, "entitlement of [%s] must be positive: %s", vmName, processorUnits);
    unitsByVm.put(vmName, processorUnits);
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
      return gang(task).vp.entitledNs;
    }
    return vp(task).entitledNs;
  }

  /** Entitlement {@code task} has left in the current window (ns). */
  public long remainingNs(Task task) {
    if (smt > 1) {
      Vp g = gang(task).vp;
      refresh(g, sim.now());
      return cores[g.cpuIndex].owner == g ? currentRemaining(g, sim.now()) : g.remainingNs;
    }
    Vp vp = vp(task);
    refresh(vp, sim.now());
    return rqs[vp.cpuIndex].curr == vp ? currentRemaining(vp, sim.now()) : vp.remainingNs;
  }

  @Override
  public void init(Kernel k) {
    checkState(kernel == null, "a PowervmDispatchScheduler serves one kernel; create one per kernel");
    checkArgument(!k.isGuest(), "powervm-dispatch dispatches virtual processors: use it for the host kernel");
    this.kernel = k;
    this.sim = k.machine().sim();
    rqs = new Rq[k.cpuCount()];
    for (int i = 0; i < rqs.length; i++) {
      rqs[i] = new Rq(i);
      k.cpu(i).rqData = rqs[i];
    }
    if (smt > 1) {
      checkArgument(k.cpuCount() % smt == 0,
          "powervm-dispatch smt=%s: the host's %s CPUs are not whole cores of %s threads", smt, k.cpuCount(), smt);
      cores = new Core[k.cpuCount() / smt];
      for (int i = 0; i < cores.length; i++) {
        cores[i] = new Core(i);
      }
      queuedAt = new int[k.cpuCount()];
      running = new HwThread[k.cpuCount()];
    }
  }

  // ---------------------------------------------------------------------------------------
  // Scheduler SPI.

  @Override
  public void enqueue(Cpu cpu, Task task, boolean wakeup) {
    if (smt > 1) {
      gangEnqueue(cpu, task);
      return;
    }
    Rq rq = rqs[cpu.index()];
    Vp vp = vp(task);
    refresh(vp, sim.now());
    vp.cpuIndex = rq.index;
    queue(rq, vp);
    armWindow();
  }

  @Override
  public void dequeue(Cpu cpu, Task task) {
    if (smt > 1) {
      gangDequeue(cpu, task);
      return;
    }
    Rq rq = rqs[cpu.index()];
    Vp vp = vp(task);
    checkState(rq.ready.remove(vp) || rq.throttled.remove(vp), "%s is not queued on %s", task, cpu);
  }

  @Override
  public void putPrev(Cpu cpu, Task prev) {
    if (smt > 1) {
      gangPutPrev(cpu, prev);
      return;
    }
    Rq rq = rqs[cpu.index()];
    checkState(rq.curr != null && rq.curr.task == prev, "%s put back on %s but current is %s", prev, cpu, rq.curr);
    Vp vp = rq.curr;
    charge(vp, sim.now());
    rq.curr = null;
    cancelExhaust(rq);
    queue(rq, vp);
  }

  @Override
  public Task pickNext(Cpu cpu) {
    if (smt > 1) {
      return gangPickNext(cpu);
    }
    Rq rq = rqs[cpu.index()];
    long now = sim.now();
    if (rq.curr != null) {
      charge(rq.curr, now); // ceded (slept) or exited
      rq.curr = null;
    }
    cancelExhaust(rq);
    if (rq.conferred != null) {
      // H_CONFER: the holder's VP runs next on the conferring processor
      Vp c = rq.conferred;
      rq.conferred = null;
      dispatch(rq, c, now);
      return c.task;
    }
    Vp next = firstEntitled(rq.ready, now);
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
      HwThread t = gang(task);
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
    boolean entitled = remaining(vp(task), now) > 0;
    for (int i = 0; i < rqs.length; i++) {
      Cpu c = kernel.cpu(i);
      if (idle(c)) {
        return c;
      }
      if (fewest == null || load(rqs[i]) < load(rqs[fewest.index()])) {
        fewest = c;
      }
      Vp curr = rqs[i].curr;
      if (entitled && leftover == null && curr != null && currentRemaining(curr, now) == 0) {
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
    Rq rq = rqs[cpu.index()];
    if (rq.curr == null || rq.curr.task != current) {
      return false;
    }
    long now = sim.now();
    charge(rq.curr, now);
    Vp w = vp(woken);
    refresh(w, now);
    return w.remainingNs > 0 && rq.curr.remainingNs == 0;
  }

  @Override
  public void tick(Cpu cpu, Task current) {
    // dispatching is driven by the window and entitlement timers, not by the host tick
  }

  @Override
  public int runnable(Cpu cpu) {
    if (smt > 1) {
      return gangPickable(cpu.index()) ? 1 : 0;
    }
    Rq rq = rqs[cpu.index()];
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
    Vp t = vp(target);
    Rq from = rqs[t.cpuIndex];
    if (!from.ready.remove(t) && !from.throttled.remove(t)) {
      return false;
    }
    long now = sim.now();
    Rq rq = rqs[cpu.index()];
    refresh(t, now);
    if (rq.curr != null && rq.curr.task == current) {
      charge(rq.curr, now);
      if (t.entitledNs != UNLIMITED && rq.curr.entitledNs != UNLIMITED) {
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
      return queuedAt[cpu.index()] - (gangPickable(cpu.index()) ? 1 : 0);
    }
    return rqs[cpu.index()].throttled.size();
  }

  @Override
  public Task balanceIdle(Cpu cpu) {
    if (smt > 1) {
      return null; // a VP's threads stay on its home core (see the class comment)
    }
    long now = sim.now();
    Vp pick = null;
    Rq from = null;
    for (int pass = 0; pass < 2 && pick == null; pass++) {
      for (Rq rq : rqs) {
        if (rq.index == cpu.index()) {
          continue;
        }
        for (Vp vp : rq.ready) {
          if (vp.task.pinnedCpu() < 0 && (pass == 1 || remaining(vp, now) > 0)) {
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
    Rq rq = rqs[cpu.index()];
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
      windowHandle = EventQueue.NO_EVENT;
      if (smt > 1) {
        gangWindow(now);
      } else {
        onWindow(now);
      }
      return;
    }
    if (smt > 1) {
      gangExhaust(kind, arg, now);
      return;
    }
    Rq rq = rqs[kind];
    rq.exhaustHandle = EventQueue.NO_EVENT;
    if (rq.curr == null || rq.curr.task.id() != arg) {
      return;
    }
    charge(rq.curr, now);
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
    for (Rq rq : rqs) {
      if (rq.curr != null) {
        charge(rq.curr, now); // refills: the boundary is now
        armExhaust(rq);
        active = true;
      }
      if (!rq.throttled.isEmpty()) {
        while (!rq.throttled.isEmpty()) {
          Vp vp = rq.throttled.pollFirst();
          refresh(vp, now);
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

  private void armWindow() {
    if (windowHandle == EventQueue.NO_EVENT) {
      long next = (sim.now() / windowNs + 1) * windowNs;
      windowHandle = sim.scheduleAt(next, this, EV_WINDOW, 0);
    }
  }

  private void armExhaust(Rq rq) {
    cancelExhaust(rq);
    Vp vp = rq.curr;
    if (vp == null || vp.entitledNs == UNLIMITED || vp.remainingNs == 0) {
      return;
    }
    rq.exhaustHandle = sim.schedule(vp.remainingNs, this, rq.index, vp.task.id());
  }

  private void cancelExhaust(Rq rq) {
    if (rq.exhaustHandle != EventQueue.NO_EVENT) {
      sim.cancel(rq.exhaustHandle);
      rq.exhaustHandle = EventQueue.NO_EVENT;
    }
  }

  // ---------------------------------------------------------------------------------------
  // Entitlement bookkeeping.

  private void dispatch(Rq rq, Vp vp, long now) {
    refresh(vp, now);
    rq.curr = vp;
    vp.runStart = now;
    armExhaust(rq);
    armWindow();
  }

  private void queue(Rq rq, Vp vp) {
    if (capped && remaining(vp, sim.now()) == 0) {
      rq.throttled.addLast(vp);
    } else {
      rq.ready.addLast(vp);
    }
  }

  /** The first VP of {@code queue} with entitlement left, or null. */
  private Vp firstEntitled(ArrayDeque<Vp> queue, long now) {
    for (Vp vp : queue) {
      if (remaining(vp, now) > 0) {
        return vp;
      }
    }
    return null;
  }

  /**
   * The shared pool: takes an entitled, unpinned VP waiting on another processor (lowest index
   * first) for {@code rq}'s processor; null if there is none.
   */
  private Vp pullEntitled(Rq rq, long now) {
    for (Rq other : rqs) {
      if (other == rq) {
        continue;
      }
      for (Vp vp : other.ready) {
        if (vp.task.pinnedCpu() < 0 && remaining(vp, now) > 0) {
          other.ready.remove(vp); // returns at once: the iteration does not go on
          vp.cpuIndex = rq.index;
          return vp;
        }
      }
    }
    return null;
  }

  private boolean entitledWaitingElsewhere(Rq rq, long now) {
    for (Rq other : rqs) {
      if (other == rq) {
        continue;
      }
      for (Vp vp : other.ready) {
        if (vp.task.pinnedCpu() < 0 && remaining(vp, now) > 0) {
          return true;
        }
      }
    }
    return false;
  }

  /** Entitlement left to a dispatched VP, counting its run since it was last charged. */
  private long currentRemaining(Vp vp, long now) {
    refresh(vp, now);
    if (vp.entitledNs == UNLIMITED) {
      return UNLIMITED;
    }
    return Math.max(0, vp.remainingNs - (now - vp.runStart));
  }

  private long remaining(Vp vp, long now) {
    refresh(vp, now);
    return vp.remainingNs;
  }

  /** Refills the entitlement when a new window has started since it was last charged. */
  private void refresh(Vp vp, long now) {
    long w = now / windowNs;
    if (vp.window != w) {
      vp.window = w;
      vp.remainingNs = vp.entitledNs;
      if (vp.runStart < w * windowNs) {
        vp.runStart = w * windowNs; // time before the boundary belonged to the old window
      }
    }
  }

  /** Charges the dispatched VP's time since it was last charged. */
  private void charge(Vp vp, long now) {
    refresh(vp, now);
    long used = now - vp.runStart;
    vp.runStart = now;
    if (vp.entitledNs != UNLIMITED && used > 0) {
      vp.remainingNs = Math.max(0, vp.remainingNs - used);
    }
  }

  private boolean idle(Cpu c) {
    Rq rq = rqs[c.index()];
    return c.isIdle() && rq.curr == null && rq.ready.isEmpty();
  }

  private static int load(Rq rq) {
    return rq.ready.size() + (rq.curr != null ? 1 : 0);
  }

  private Vp vp(Task t) {
    if (t.schedData instanceof Vp vp) {
      return vp;
    }
    checkState(t.kernel() == kernel, "%s belongs to kernel %s, not %s", t, t.kernel(), kernel);
    long entitled = UNLIMITED;
    if (t instanceof VcpuTask v) {
      int vps = v.vm().guest().cpuCount();
      Double units = unitsByVm.get(v.vm().name());
      double u = units != null ? units : defaultUnits <= 0 ? vps : defaultUnits;
      entitled = Math.min(windowNs, Math.round(u / vps * windowNs));
    }
    Vp vp = new Vp(t, entitled);
    vp.window = Long.MIN_VALUE;
    t.schedData = vp;
    return vp;
  }

  // ---------------------------------------------------------------------------------------
  // SMT gang dispatch (smt > 1). The host's CPUs are hardware threads: CPU c is thread
  // c % smt of core c / smt. A VP is smt consecutive guest vCPUs (threads); it owns a whole
  // core while dispatched and its thread t runs only on hardware thread t of that core. A VP
  // is dispatched when any of its threads is runnable, keeps the core while any of them is
  // (its ceded threads leave their hardware threads idle: no other VP may use them) and cedes
  // when all of them have ceded; its entitlement is charged once per VP, by the time it owns
  // the core. On exhaustion or an entitled VP's wakeup onto a leftover-capacity VP, the core
  // changes hands and every thread of the old VP is preempted together.

  private void gangEnqueue(Cpu cpu, Task task) {
    HwThread th = gang(task);
    Vp vp = th.vp;
    checkState(!th.queued, "%s is already queued", task);
    checkState(cpu.index() == vp.cpuIndex * smt + th.slot, "%s enqueued on %s, not its hardware thread", task, cpu);
    th.queued = true;
    vp.nQueued++;
    queuedAt[cpu.index()]++;
    Core core = cores[vp.cpuIndex];
    long now = sim.now();
    if (core.owner == vp) {
      return;
    }
    if (!vp.waiting) {
      vp.waiting = true;
      core.ready.addLast(vp);
    }
    if (core.owner == null) {
      handOver(core, now, -1);
    } else if (remaining(vp, now) > 0 && currentRemaining(core.owner, now) == 0) {
      release(core, now, -1); // an entitled VP preempts a VP running on leftover capacity
    }
    armWindow();
  }

  private void gangDequeue(Cpu cpu, Task task) {
    HwThread th = gang(task);
    Vp vp = th.vp;
    checkState(th.queued, "%s is not queued on %s", task, cpu);
    th.queued = false;
    vp.nQueued--;
    queuedAt[cpu.index()]--;
    Core core = cores[vp.cpuIndex];
    if (vp.nQueued == 0 && vp.nRunning == 0) {
      if (vp.waiting) {
        vp.waiting = false;
        core.ready.remove(vp);
      } else if (core.owner == vp) {
        release(core, sim.now(), cpu.index());
      }
    }
  }

  private void gangPutPrev(Cpu cpu, Task prev) {
    int i = cpu.index();
    HwThread th = running[i];
    checkState(th != null && th.task == prev, "%s put back on %s but current is %s", prev, cpu, th);
    running[i] = null;
    Vp vp = th.vp;
    vp.nRunning--;
    th.queued = true;
    vp.nQueued++;
    queuedAt[i]++;
    Core core = cores[vp.cpuIndex];
    if (core.owner != vp && !vp.waiting) {
      vp.waiting = true;
      core.ready.addLast(vp);
    }
  }

  private Task gangPickNext(Cpu cpu) {
    int i = cpu.index();
    Core core = cores[i / smt];
    HwThread prev = running[i];
    if (prev != null) { // ceded (slept) or exited
      running[i] = null;
      prev.vp.nRunning--;
    }
    Vp owner = core.owner;
    if (owner != null && owner.nQueued == 0 && owner.nRunning == 0) {
      release(core, sim.now(), i); // all its threads ceded: the VP cedes the core
      owner = core.owner;
    }
    if (owner == null) {
      return null;
    }
    HwThread th = owner.threads[i % smt];
    if (th == null || !th.queued) {
      return null; // the hardware thread idles while its VP is dispatched
    }
    th.queued = false;
    owner.nQueued--;
    owner.nRunning++;
    queuedAt[i]--;
    running[i] = th;
    return th.task;
  }

  private boolean gangPickable(int cpuIndex) {
    Vp owner = cores[cpuIndex / smt].owner;
    if (owner == null) {
      return false;
    }
    HwThread th = owner.threads[cpuIndex % smt];
    return th != null && th.queued;
  }

  /** Takes the core from its owner (charged; back in the queue if it has runnable threads) and hands it over. */
  private void release(Core core, long now, int except) {
    Vp old = core.owner;
    charge(old, now);
    core.owner = null;
    cancelGangExhaust(core);
    if (old.nQueued + old.nRunning > 0 && !old.waiting) {
      old.waiting = true;
      core.ready.addLast(old);
    }
    int base = core.index * smt;
    for (int t = 0; t < smt; t++) {
      if (running[base + t] != null && base + t != except) {
        kernel.cpu(base + t).reschedule(); // preempted together with the VP
      }
    }
    handOver(core, now, except);
  }

  /** Dispatches the next VP waiting for {@code core} (entitled first; leftover only if uncapped). */
  private void handOver(Core core, long now, int except) {
    Vp next = firstEntitled(core.ready, now);
    if (next == null && !capped) {
      next = core.ready.peekFirst();
    }
    if (next == null) {
      return;
    }
    core.ready.remove(next);
    next.waiting = false;
    refresh(next, now);
    core.owner = next;
    next.runStart = now;
    armGangExhaust(core);
    armWindow();
    int base = core.index * smt;
    for (int t = 0; t < smt; t++) {
      HwThread th = next.threads[t];
      if (th != null && th.queued && base + t != except) {
        kernel.cpu(base + t).reschedule();
      }
    }
  }

  private void gangExhaust(int coreIndex, long vpId, long now) {
    Core core = cores[coreIndex];
    core.exhaustHandle = EventQueue.NO_EVENT;
    Vp owner = core.owner;
    if (owner == null || owner.task.id() != vpId) {
      return;
    }
    charge(owner, now);
    if (owner.remainingNs > 0) {
      armGangExhaust(core);
      return;
    }
    core.exhausted++;
    if (capped || !core.ready.isEmpty()) {
      release(core, now, -1);
    }
  }

  private void gangWindow(long now) {
    boolean active = false;
    for (Core core : cores) {
      if (core.owner != null) {
        charge(core.owner, now); // refills: the boundary is now
        armGangExhaust(core);
      } else if (!core.ready.isEmpty()) {
        handOver(core, now, -1); // capped VPs got their entitlement back
      }
      active |= core.owner != null || !core.ready.isEmpty();
    }
    if (active) {
      armWindow();
    }
  }

  private void armGangExhaust(Core core) {
    cancelGangExhaust(core);
    Vp vp = core.owner;
    if (vp == null || vp.entitledNs == UNLIMITED || vp.remainingNs == 0) {
      return;
    }
    core.exhaustHandle = sim.schedule(vp.remainingNs, this, core.index, vp.task.id());
  }

  private void cancelGangExhaust(Core core) {
    if (core.exhaustHandle != EventQueue.NO_EVENT) {
      sim.cancel(core.exhaustHandle);
      core.exhaustHandle = EventQueue.NO_EVENT;
    }
  }

  private HwThread gang(Task t) {
    if (t.schedData instanceof HwThread th) {
      return th;
    }
    checkState(t.kernel() == kernel, "%s belongs to kernel %s, not %s", t, t.kernel(), kernel);
    checkArgument(t instanceof VcpuTask, "powervm-dispatch smt=%s dispatches only vCPU threads, not %s", smt, t);
    VcpuTask v = (VcpuTask) t;
    int n = v.vm().guest().cpuCount();
    checkArgument(n % smt == 0, "powervm-dispatch smt=%s: LPAR %s has %s vCPUs, not whole VPs of %s threads",
        smt, v.vm().name(), n, smt);
    Vp[] vps = vpsByVm.get(v.vm().name());
    if (vps == null) {
      vps = new Vp[n / smt];
      vpsByVm.put(v.vm().name(), vps);
    }
    int index = v.guestCpu().index();
    Vp vp = vps[index / smt];
    if (vp == null) {
      Double units = unitsByVm.get(v.vm().name());
      double u = units != null ? units : defaultUnits <= 0 ? vps.length : defaultUnits;
      vp = new Vp(t, Math.min(windowNs, Math.round(u / vps.length * windowNs))); // entitlement per VP
      vp.window = Long.MIN_VALUE;
      vp.threads = new HwThread[smt];
      vp.cpuIndex = homes++ % cores.length; // home core, round robin over the pool
      vps[index / smt] = vp;
    }
    HwThread th = new HwThread(t, vp, index % smt);
    vp.threads[th.slot] = th;
    t.schedData = th;
    return th;
  }

  /** One physical core's dispatch state (smt > 1). */
  private static final class Core {
    final int index;
    final ArrayDeque<Vp> ready = new ArrayDeque<>(8); // VPs with runnable threads, not dispatched
    Vp owner;
    long exhaustHandle = EventQueue.NO_EVENT;
    long exhausted;

    Core(int index) {
      this.index = index;
    }
  }

  /** One hardware thread of a VP (smt > 1): a guest vCPU's host thread. */
  private static final class HwThread {
    final Task task;
    final Vp vp;
    final int slot;
    boolean queued;

    HwThread(Task task, Vp vp, int slot) {
      this.task = task;
      this.vp = vp;
      this.slot = slot;
    }

    @Override
    public String toString() {
      return task.toString();
    }
  }

  /** Times {@code cpu}'s dispatched VP ran out of entitlement. */
  public long exhaustions(Cpu cpu) {
    if (smt > 1) {
      return cores[cpu.index() / smt].exhausted;
    }
    return rqs[cpu.index()].exhausted;
  }

  /** One physical processor's dispatch state. */
  private static final class Rq {
    final int index;
    final ArrayDeque<Vp> ready = new ArrayDeque<>(8);
    final ArrayDeque<Vp> throttled = new ArrayDeque<>(4);
    Vp curr;
    /** A VP conferred to by this processor's caller: dispatched next. */
    Vp conferred;
    long exhaustHandle = EventQueue.NO_EVENT;
    long exhausted;

    Rq(int index) {
      this.index = index;
    }
  }

  /** A virtual processor's entitlement state. */
  private static final class Vp {
    final Task task;
    final long entitledNs;
    long remainingNs;
    long window;
    long runStart;
    int cpuIndex; // smt > 1: the home core
    HwThread[] threads; // smt > 1 only
    int nQueued; // smt > 1: threads waiting for the core
    int nRunning; // smt > 1: threads on hardware threads of the core
    boolean waiting; // smt > 1: in its core's ready queue

    Vp(Task task, long entitledNs) {
      this.task = task;
      this.entitledNs = entitledNs;
    }

    @Override
    public String toString() {
      return task.toString();
    }
  }
}

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
import org.lockvisor.machine.Task;
import org.lockvisor.machine.VcpuTask;

/**
 * SMT gang dispatch of {@link PowervmDispatchScheduler} (smt &gt; 1; its class comment gives the
 * sources). The host's CPUs are hardware threads: CPU c is thread c % smt of core c / smt. A VP
 * is smt consecutive guest vCPUs (threads); it owns a whole core while dispatched and its thread
 * t runs only on hardware thread t of that core. A VP is dispatched when any of its threads is
 * runnable, keeps the core while any of them is (its ceded threads leave their hardware threads
 * idle: no other VP may use them) and cedes when all of them have ceded; its entitlement is
 * charged once per VP, by the time it owns the core. On exhaustion or an entitled VP's wakeup
 * onto a leftover-capacity VP, the core changes hands and every thread of the old VP is
 * preempted together. The scheduler stays the timers' event handler and calls in here; the gang
 * reads the window state it shares with the scheduler through {@link PowervmWindow}, never the
 * scheduler itself. Split out of {@link PowervmDispatchScheduler}.
 */
final class PowervmGang {
  private final PowervmWindow window;
  /** The scheduler as the timers' event handler (an {@link EventHandler}: never called here otherwise). */
  private final EventHandler timers;
  private final Kernel kernel;
  private final Simulation sim;
  private final int smt;
  private final boolean capped;
  private final long windowNs;
  private final Core[] cores;
  private final int[] queuedAt; // queued threads per host CPU (hardware thread)
  private final PowervmHwThread[] running; // the thread each host CPU runs, or null
  private final Map<String, PowervmVp[]> vpsByVm = new HashMap<>(); // lookups only
  private int homes; // VPs placed so far

  PowervmGang(PowervmWindow window, EventHandler timers, Kernel kernel, int smt, boolean capped) {
    checkArgument(kernel.cpuCount() % smt == 0,
        "powervm-dispatch smt=%s: the host's %s CPUs are not whole cores of %s threads", smt, kernel.cpuCount(), smt);
    this.window = window;
    this.timers = timers;
    this.kernel = kernel;
    this.sim = kernel.machine().sim();
    this.smt = smt;
    this.capped = capped;
    this.windowNs = window.windowNs();
    cores = new Core[kernel.cpuCount() / smt];
    for (int i = 0; i < cores.length; i++) {
      cores[i] = new Core(i);
    }
    queuedAt = new int[kernel.cpuCount()];
    running = new PowervmHwThread[kernel.cpuCount()];
  }

  /** Whether {@code vp} owns its core now. */
  boolean owns(PowervmVp vp) {
    return cores[vp.cpuIndex].owner == vp;
  }

  /** Queued threads on host CPU {@code cpuIndex} (runnable for the machine, pickable or not). */
  int queuedAt(int cpuIndex) {
    return queuedAt[cpuIndex];
  }

  /** Times the VP dispatched on {@code cpuIndex}'s core ran out of entitlement. */
  long exhaustions(int cpuIndex) {
    return cores[cpuIndex / smt].exhausted;
  }

  void enqueue(Cpu cpu, Task task) {
    PowervmHwThread th = thread(task);
    PowervmVp vp = th.vp;
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
    } else if (vp.remaining(now, windowNs) > 0 && core.owner.currentRemaining(now, windowNs) == 0) {
      release(core, now, -1); // an entitled VP preempts a VP running on leftover capacity
    }
    window.arm(sim);
  }

  void dequeue(Cpu cpu, Task task) {
    PowervmHwThread th = thread(task);
    PowervmVp vp = th.vp;
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

  void putPrev(Cpu cpu, Task prev) {
    int i = cpu.index();
    PowervmHwThread th = running[i];
    checkState(th != null && th.task == prev, "%s put back on %s but current is %s", prev, cpu, th);
    running[i] = null;
    PowervmVp vp = th.vp;
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

  Task pickNext(Cpu cpu) {
    int i = cpu.index();
    Core core = cores[i / smt];
    PowervmHwThread prev = running[i];
    if (prev != null) { // ceded (slept) or exited
      running[i] = null;
      prev.vp.nRunning--;
    }
    PowervmVp owner = core.owner;
    if (owner != null && owner.nQueued == 0 && owner.nRunning == 0) {
      release(core, sim.now(), i); // all its threads ceded: the VP cedes the core
      owner = core.owner;
    }
    if (owner == null) {
      return null;
    }
    PowervmHwThread th = owner.threads[i % smt];
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

  boolean pickable(int cpuIndex) {
    PowervmVp owner = cores[cpuIndex / smt].owner;
    if (owner == null) {
      return false;
    }
    PowervmHwThread th = owner.threads[cpuIndex % smt];
    return th != null && th.queued;
  }

  /** Takes the core from its owner (charged; back in the queue if it has runnable threads) and hands it over. */
  private void release(Core core, long now, int except) {
    PowervmVp old = core.owner;
    old.charge(now, windowNs);
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
    PowervmVp next = window.firstEntitled(core.ready, now);
    if (next == null && !capped) {
      next = core.ready.peekFirst();
    }
    if (next == null) {
      return;
    }
    core.ready.remove(next);
    next.waiting = false;
    next.refresh(now, windowNs);
    core.owner = next;
    next.runStart = now;
    armGangExhaust(core);
    window.arm(sim);
    int base = core.index * smt;
    for (int t = 0; t < smt; t++) {
      PowervmHwThread th = next.threads[t];
      if (th != null && th.queued && base + t != except) {
        kernel.cpu(base + t).reschedule();
      }
    }
  }

  void exhaust(int coreIndex, long vpId, long now) {
    Core core = cores[coreIndex];
    core.exhaustHandle = EventQueue.NO_EVENT;
    PowervmVp owner = core.owner;
    if (owner == null || owner.task.id() != vpId) {
      return;
    }
    owner.charge(now, windowNs);
    if (owner.remainingNs > 0) {
      armGangExhaust(core);
      return;
    }
    core.exhausted++;
    if (capped || !core.ready.isEmpty()) {
      release(core, now, -1);
    }
  }

  void window(long now) {
    boolean active = false;
    for (Core core : cores) {
      if (core.owner != null) {
        core.owner.charge(now, windowNs); // refills: the boundary is now
        armGangExhaust(core);
      } else if (!core.ready.isEmpty()) {
        handOver(core, now, -1); // capped VPs got their entitlement back
      }
      active |= core.owner != null || !core.ready.isEmpty();
    }
    if (active) {
      window.arm(sim);
    }
  }

  private void armGangExhaust(Core core) {
    cancelGangExhaust(core);
    PowervmVp vp = core.owner;
    if (vp == null || vp.entitledNs == PowervmVp.UNLIMITED || vp.remainingNs == 0) {
      return;
    }
    core.exhaustHandle = sim.schedule(vp.remainingNs, timers, core.index, vp.task.id());
  }

  private void cancelGangExhaust(Core core) {
    if (core.exhaustHandle != EventQueue.NO_EVENT) {
      sim.cancel(core.exhaustHandle);
      core.exhaustHandle = EventQueue.NO_EVENT;
    }
  }

  PowervmHwThread thread(Task t) {
    if (t.schedData instanceof PowervmHwThread th) {
      return th;
    }
    checkState(t.kernel() == kernel, "%s belongs to kernel %s, not %s", t, t.kernel(), kernel);
    checkArgument(t instanceof VcpuTask, "powervm-dispatch smt=%s dispatches only vCPU threads, not %s", smt, t);
    VcpuTask v = (VcpuTask) t;
    int n = v.vm().guest().cpuCount();
    checkArgument(n % smt == 0, "powervm-dispatch smt=%s: LPAR %s has %s vCPUs, not whole VPs of %s threads",
        smt, v.vm().name(), n, smt);
    PowervmVp[] vps = vpsByVm.get(v.vm().name());
    if (vps == null) {
      vps = new PowervmVp[n / smt];
      vpsByVm.put(v.vm().name(), vps);
    }
    int index = v.guestCpu().index();
    PowervmVp vp = vps[index / smt];
    if (vp == null) {
      vp = new PowervmVp(t, window.entitledNs(v.vm().name(), vps.length)); // entitlement per VP
      vp.threads = new PowervmHwThread[smt];
      vp.cpuIndex = homes++ % cores.length; // home core, round robin over the pool
      vps[index / smt] = vp;
    }
    PowervmHwThread th = new PowervmHwThread(t, vp, index % smt);
    vp.threads[th.slot] = th;
    t.schedData = th;
    return th;
  }

  /** One physical core's dispatch state (smt > 1). */
  static final class Core {
    final int index;
    final ArrayDeque<PowervmVp> ready = new ArrayDeque<>(8); // VPs with runnable threads, not dispatched
    PowervmVp owner;
    long exhaustHandle = EventQueue.NO_EVENT;
    long exhausted;

    Core(int index) {
      this.index = index;
    }
  }
}

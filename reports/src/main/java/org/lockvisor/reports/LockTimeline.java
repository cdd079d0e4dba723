package org.lockvisor.reports;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.lockvisor.machine.Cpu;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.MachineTrace;
import org.lockvisor.machine.Task;
import org.lockvisor.machine.TaskState;
import org.lockvisor.machine.VcpuTask;
import org.lockvisor.machine.Vm;

/**
 * Records, for the lock timeline of a run's page ({@link LockTimelineSvg}), what happened to the
 * locks on one time axis: each hold (lock, holder, the CPU it released on), each contended wait
 * (lock, waiter), which task ran on each guest CPU, and when each vCPU thread ran on the host and
 * why it stopped (preempted while runnable, or halted). From these the intervals where a lock's
 * holder sat on a preempted vCPU follow exactly: the hold, intersected with the holder running on
 * its guest CPU, intersected with that vCPU's thread being preempted on the host.
 *
 * <p>Bounded like {@link ChromeTrace}: after {@code maxEvents} the recorder stops and the timeline
 * says up to when it covers. Events go into primitive arrays (an array grows by doubling, rarely);
 * lock names are interned on first sight, per kernel.
 */
public final class LockTimeline implements MachineTrace {

  /** Default bound of the events kept. */
  public static final int DEFAULT_EVENTS = 200_000;

  static final byte HOLD = 0;
  static final byte WAIT = 1;
  static final byte GUEST_RUN = 2;
  static final byte VCPU_RUN = 3;
  /** Why a vCPU thread's run ended. */
  static final int OUT_PREEMPTED = 1;
  static final int OUT_STOPPED = 0;

  private final Machine machine;
  private final MachineTrace next;
  private final int maxEvents;
  private final long startNs;
  private final long[] guestSince;
  private final Task[] guestTask;
  private final long[] vcpuSince;
  private final Map<Kernel, Map<String, Integer>> lockIds = new IdentityHashMap<>();
  private final List<String> lockNames = new ArrayList<>();
  private final List<Kernel> lockKernels = new ArrayList<>();

  private int size;
  private byte[] kind = new byte[1024];
  private int[] subject = new int[1024];
  private int[] task = new int[1024];
  private int[] cpu = new int[1024];
  private long[] start = new long[1024];
  private long[] end = new long[1024];
  private long truncatedAt = -1;
  private long endNs = -1;

  private LockTimeline(Machine machine, MachineTrace next, int maxEvents) {
    checkArgument(maxEvents > 0, "timeline event limit must be positive: [%s]", maxEvents);
    this.machine = machine;
    this.next = next;
    this.maxEvents = maxEvents;
    this.startNs = machine.sim().now();
    int cpus = machine.cpus().stream().mapToInt(Cpu::id).max().orElse(-1) + 1;
    this.guestSince = new long[cpus];
    this.guestTask = new Task[cpus];
    this.vcpuSince = new long[cpus];
    Arrays.fill(guestSince, -1);
    Arrays.fill(vcpuSince, -1);
    for (Vm vm : machine.vms()) {
      for (Cpu c : vm.guest().cpus()) {
        Task t = c.current();
        if (t != null && t != c.idleTask()) {
          guestTask[c.id()] = t;
          guestSince[c.id()] = startNs;
        }
      }
      for (VcpuTask v : vm.vcpus()) {
        if (v.onCpu()) {
          vcpuSince[v.guestCpu().id()] = startNs;
        }
      }
    }
  }

  /** Records from now on: installs itself as the machine's trace, forwarding to the previous one. */
  public static LockTimeline attach(Machine machine, int maxEvents) {
    LockTimeline t = new LockTimeline(machine, machine.trace(), maxEvents);
    machine.setTrace(t);
    return t;
  }

  @Override
  public void onSwitch(Cpu c, Task prev, Task nextTask) {
    next.onSwitch(c, prev, nextTask);
    long now = machine.sim().now();
    if (c.kernel().isGuest()) {
      int id = c.id();
      if (guestTask[id] != null && guestSince[id] >= 0) {
        add(GUEST_RUN, -1, guestTask[id].id(), id, guestSince[id], now);
      }
      boolean idle = nextTask == null || nextTask == c.idleTask();
      guestTask[id] = idle ? null : nextTask;
      guestSince[id] = idle ? -1 : now;
      return;
    }
    if (prev instanceof VcpuTask v) {
      int g = v.guestCpu().id();
      if (vcpuSince[g] >= 0) {
        add(VCPU_RUN, prev.state() == TaskState.RUNNING ? OUT_PREEMPTED : OUT_STOPPED, v.id(), g, vcpuSince[g], now);
      }
      vcpuSince[g] = -1;
    }
    if (nextTask instanceof VcpuTask v) {
      vcpuSince[v.guestCpu().id()] = now;
    }
  }

  @Override
  public void onWake(Task t, Cpu target) {
    next.onWake(t, target);
  }

  @Override
  public void onExit(VcpuTask vcpu, String reason, long exitStart, long durationNs) {
    next.onExit(vcpu, reason, exitStart, durationNs);
  }

  @Override
  public void onSpin(Task t, int symbol, long spinStart, long spinEnd) {
    next.onSpin(t, symbol, spinStart, spinEnd);
  }

  @Override
  public void onLockHeld(Task holder, String lock, long heldFrom, long heldTo) {
    next.onLockHeld(holder, lock, heldFrom, heldTo);
    if (truncatedAt >= 0) {
      return;
    }
    Cpu c = holder.cpu();
    add(HOLD, lockId(holder.kernel(), lock), holder.id(), c == null ? -1 : c.id(), heldFrom, heldTo);
  }

  @Override
  public void onLockWaited(Task waiter, String lock, long waitStart, long waitEnd) {
    next.onLockWaited(waiter, lock, waitStart, waitEnd);
    if (truncatedAt >= 0) {
      return;
    }
    add(WAIT, lockId(waiter.kernel(), lock), waiter.id(), -1, waitStart, waitEnd);
  }

  @Override
  public void onIpi(Cpu from, Cpu to) {
    next.onIpi(from, to);
  }

  private int lockId(Kernel kernel, String lock) {
    Map<String, Integer> ids = lockIds.computeIfAbsent(kernel, k -> new HashMap<>());
    Integer id = ids.get(lock);
    if (id == null) {
      id = lockNames.size();
      ids.put(lock, id);
      lockNames.add(lock);
      lockKernels.add(kernel);
    }
    return id;
  }

  private void add(byte k, int what, int taskId, int cpuId, long from, long to) {
    if (truncatedAt >= 0) {
      return;
    }
    if (size >= maxEvents) {
      truncatedAt = machine.sim().now();
      return;
    }
    if (size == kind.length) {
      int n = Math.min(maxEvents, size * 2);
      kind = Arrays.copyOf(kind, n);
      subject = Arrays.copyOf(subject, n);
      task = Arrays.copyOf(task, n);
      cpu = Arrays.copyOf(cpu, n);
      start = Arrays.copyOf(start, n);
      end = Arrays.copyOf(end, n);
    }
    kind[size] = k;
    subject[size] = what;
    task[size] = taskId;
    cpu[size] = cpuId;
    start[size] = from;
    end[size] = to;
    size++;
  }

  /** Closes the recording now: the runs still open (guest tasks, vCPUs) end here. */
  public void close() {
    if (endNs >= 0) {
      return;
    }
    long now = machine.sim().now();
    for (int id = 0; id < guestTask.length; id++) {
      if (guestTask[id] != null && guestSince[id] >= 0) {
        add(GUEST_RUN, -1, guestTask[id].id(), id, guestSince[id], now);
      }
      if (vcpuSince[id] >= 0) {
        VcpuTask v = machine.cpuById(id).vcpuTask();
        add(VCPU_RUN, OUT_STOPPED, v == null ? -1 : v.id(), id, vcpuSince[id], now);
      }
    }
    endNs = truncatedAt >= 0 ? truncatedAt : now;
  }

  int size() {
    return size;
  }

  byte kind(int i) {
    return kind[i];
  }

  int subject(int i) {
    return subject[i];
  }

  int task(int i) {
    return task[i];
  }

  int cpu(int i) {
    return cpu[i];
  }

  long start(int i) {
    return start[i];
  }

  long end(int i) {
    return end[i];
  }

  long startNs() {
    return startNs;
  }

  /** The end of what the timeline covers: the close, or where the bound stopped recording. */
  long endNs() {
    return endNs;
  }

  boolean truncated() {
    return truncatedAt >= 0;
  }

  List<String> lockNames() {
    return lockNames;
  }

  Kernel lockKernel(int lock) {
    return lockKernels.get(lock);
  }

  Machine machine() {
    return machine;
  }
}

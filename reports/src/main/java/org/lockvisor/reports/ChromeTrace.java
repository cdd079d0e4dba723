package org.lockvisor.reports;

import static com.google.common.base.Preconditions.checkArgument;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import org.lockvisor.machine.Cpu;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.MachineTrace;
import org.lockvisor.machine.Task;
import org.lockvisor.machine.TaskState;
import org.lockvisor.machine.VcpuTask;
import org.lockvisor.machine.Vm;

/**
 * A Chrome trace-event recorder ({@code trace.json}) that opens in the Perfetto UI and
 * {@code chrome://tracing}: one process for the host with a track per physical CPU, one process
 * per VM with a track per guest CPU (vCPU), and one process per kernel ({@code ... threads}, pid
 * {@value #THREADS_PID} and up) with a track per thread. Slices ({@code ph: X}) show which task
 * ran on each CPU (and, on the thread's track, on which CPU it ran), the spins (named by their
 * kernel symbol, on the CPU and on the thread) and VM exits (on the guest CPU that stopped for
 * them, a halt being the {@code HLT} exit) and lock holds ({@code hold <lock>}, on the CPU that
 * released the lock); instant events mark wakeups, preemptions (a task switched out while still
 * runnable) and reschedule IPIs (on the target CPU). Timestamps are microseconds with nanosecond
 * decimals.
 *
 * <p>Bounded: after {@code maxEvents} the recorder stops, keeps what it has, and the file says
 * so (a {@code trace truncated} instant and {@code "truncated": true} in the metadata). Events
 * are kept in primitive arrays while the run goes, so recording allocates only when an array
 * grows; names are resolved when the file is written.
 */
public final class ChromeTrace implements MachineTrace {

  private static final byte SLICE_TASK = 0;
  private static final byte SLICE_SPIN = 1;
  private static final byte SLICE_EXIT = 2;
  private static final byte INSTANT_WAKE = 3;
  private static final byte INSTANT_PREEMPT = 4;
  private static final byte SLICE_LOCK = 5;
  private static final byte INSTANT_IPI = 6;
  /** Process ids of the per-thread tracks: this plus 0 for the host, plus 1.. for each VM. */
  static final int THREADS_PID = 1000;

  private final Machine machine;
  private final MachineTrace next;
  private final int maxEvents;
  private final long[] switchedInAt;
  private final Task[] runningTask;

  private int size;
  private byte[] type = new byte[1024];
  private int[] cpu = new int[1024];
  private long[] start = new long[1024];
  private long[] duration = new long[1024];
  private Object[] subject = new Object[1024];
  private int[] symbol = new int[1024];
  private boolean truncated;

  /**
   * @param machine the machine, with its host and VMs created
   * @param maxEvents at most this many events are kept
   * @param next a trace to forward every callback to (e.g. an invariant checker), or {@link MachineTrace#NONE}
   */
  public ChromeTrace(Machine machine, int maxEvents, MachineTrace next) {
    checkArgument(maxEvents > 0, "trace event limit must be positive: [%s]", maxEvents);
    this.machine = machine;
    this.maxEvents = maxEvents;
    this.next = next;
    int cpus = machine.cpus().stream().mapToInt(Cpu::id).max().orElse(-1) + 1;
    this.switchedInAt = new long[cpus];
    this.runningTask = new Task[cpus];
    Arrays.fill(switchedInAt, -1);
  }

  /** Records into {@code machine} from now on: installs itself as the machine's trace. */
  public static ChromeTrace attach(Machine machine, int maxEvents) {
    ChromeTrace trace = new ChromeTrace(machine, maxEvents, machine.trace());
    machine.setTrace(trace);
    return trace;
  }

  public int events() {
    return size;
  }

  public boolean truncated() {
    return truncated;
  }

  @Override
  public void onSwitch(Cpu c, Task prev, Task nextTask) {
    next.onSwitch(c, prev, nextTask);
    long now = machine.sim().now();
    int id = c.id();
    if (runningTask[id] != null && runningTask[id] != c.idleTask() && switchedInAt[id] >= 0) {
      add(SLICE_TASK, id, switchedInAt[id], now - switchedInAt[id], runningTask[id], -1);
    }
    if (prev != null && prev != c.idleTask() && prev.state() == TaskState.RUNNING) {
      // Switched out while runnable: preempted (or yielded), not gone to sleep.
      add(INSTANT_PREEMPT, id, now, 0, prev, -1);
    }
    runningTask[id] = nextTask;
    switchedInAt[id] = now;
  }

  @Override
  public void onWake(Task task, Cpu target) {
    next.onWake(task, target);
    add(INSTANT_WAKE, target.id(), machine.sim().now(), 0, task, -1);
  }

  @Override
  public void onExit(VcpuTask vcpu, String reason, long exitStart, long durationNs) {
    next.onExit(vcpu, reason, exitStart, durationNs);
    add(SLICE_EXIT, vcpu.guestCpu().id(), exitStart, durationNs, reason, -1);
  }

  @Override
  public void onSpin(Task task, int spinSymbol, long spinStart, long end) {
    next.onSpin(task, spinSymbol, spinStart, end);
    Cpu c = task.cpu();
    if (c != null) {
      add(SLICE_SPIN, c.id(), spinStart, end - spinStart, task, spinSymbol);
    }
  }

  @Override
  public void onLockHeld(Task holder, String lock, long heldFrom, long end) {
    next.onLockHeld(holder, lock, heldFrom, end);
    Cpu c = holder.cpu();
    if (c != null) {
      add(SLICE_LOCK, c.id(), heldFrom, end - heldFrom, lock, -1);
    }
  }

  @Override
  public void onLockWaited(Task waiter, String lock, long waitStart, long end) {
    next.onLockWaited(waiter, lock, waitStart, end);
  }

  @Override
  public void onIpi(Cpu from, Cpu to) {
    next.onIpi(from, to);
    add(INSTANT_IPI, to.id(), machine.sim().now(), 0, from, -1);
  }

  private void add(byte kind, int cpuId, long at, long ns, Object what, int sym) {
    if (size >= maxEvents) {
      truncated = true;
      return;
    }
    if (size == type.length) {
      int n = Math.min(maxEvents, size * 2);
      type = Arrays.copyOf(type, n);
      cpu = Arrays.copyOf(cpu, n);
      start = Arrays.copyOf(start, n);
      duration = Arrays.copyOf(duration, n);
      subject = Arrays.copyOf(subject, n);
      symbol = Arrays.copyOf(symbol, n);
    }
    type[size] = kind;
    cpu[size] = cpuId;
    start[size] = at;
    duration[size] = ns;
    subject[size] = what;
    symbol[size] = sym;
    size++;
  }

  /** Writes the trace, closing the slices still open at the current simulated time. */
  public void writeTo(OutputStream out) throws IOException {
    long now = machine.sim().now();
    try (JsonGenerator g = new JsonFactory().createGenerator(out, JsonEncoding.UTF8)) {
      g.writeStartObject();
      g.writeStringField("displayTimeUnit", "ns");
      g.writeObjectFieldStart("metadata");
      g.writeStringField("generator", "lockvisor");
      g.writeBooleanField("truncated", truncated);
      g.writeNumberField("events", size);
      g.writeEndObject();
      g.writeArrayFieldStart("traceEvents");
      writeNames(g);
      for (int i = 0; i < size; i++) {
        writeEvent(g, type[i], cpu[i], start[i], duration[i], subject[i], symbol[i], false);
        if (type[i] == SLICE_TASK || type[i] == SLICE_SPIN) {
          writeEvent(g, type[i], cpu[i], start[i], duration[i], subject[i], symbol[i], true);
        }
      }
      for (int id = 0; id < runningTask.length; id++) {
        Task t = runningTask[id];
        if (t != null && switchedInAt[id] >= 0 && t != machine.cpuById(id).idleTask()) {
          writeEvent(g, SLICE_TASK, id, switchedInAt[id], now - switchedInAt[id], t, -1, false);
          writeEvent(g, SLICE_TASK, id, switchedInAt[id], now - switchedInAt[id], t, -1, true);
        }
      }
      if (truncated) {
        g.writeStartObject();
        g.writeStringField("name", "trace truncated at " + maxEvents + " events");
        g.writeStringField("ph", "i");
        g.writeStringField("s", "g");
        g.writeNumberField("ts", now / 1e3);
        g.writeNumberField("pid", 0);
        g.writeNumberField("tid", 0);
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeEndObject();
    }
  }

  private void writeNames(JsonGenerator g) throws IOException {
    meta(g, "process_name", 0, 0, "host " + machine.host().name());
    for (Cpu c : machine.host().cpus()) {
      meta(g, "thread_name", 0, c.id(), c.name());
    }
    int pid = 1;
    for (Vm vm : machine.vms()) {
      meta(g, "process_name", pid, 0, "vm " + vm.name());
      for (Cpu c : vm.guest().cpus()) {
        meta(g, "thread_name", pid, c.id(), c.name());
      }
      pid++;
    }
    meta(g, "process_name", THREADS_PID, 0, "host " + machine.host().name() + " threads");
    pid = 1;
    for (Vm vm : machine.vms()) {
      meta(g, "process_name", THREADS_PID + pid, 0, "vm " + vm.name() + " threads");
      pid++;
    }
    // an idle task (swapper/N) gets a track only when it ran something: interrupt work while idle
    java.util.Set<Task> onTrack = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    for (int i = 0; i < size; i++) {
      if ((type[i] == SLICE_TASK || type[i] == SLICE_SPIN) && subject[i] instanceof Task t) {
        onTrack.add(t);
      }
    }
    for (Task t : machine.tasks()) {
      if (!t.name().startsWith("swapper/") || onTrack.contains(t)) {
        meta(g, "thread_name", threadsPid(t), t.id(), t.name());
      }
    }
  }

  /** The process of a task's own track: its kernel's thread group. */
  private int threadsPid(Task t) {
    if (!t.kernel().isGuest()) {
      return THREADS_PID;
    }
    return THREADS_PID + 1 + machine.vms().indexOf(t.kernel().vm());
  }

  private static void meta(JsonGenerator g, String what, int pid, int tid, String name) throws IOException {
    g.writeStartObject();
    g.writeStringField("name", what);
    g.writeStringField("ph", "M");
    g.writeNumberField("pid", pid);
    g.writeNumberField("tid", tid);
    g.writeObjectFieldStart("args");
    g.writeStringField("name", name);
    g.writeEndObject();
    g.writeEndObject();
  }

  /**
   * One event on its CPU's track, or ({@code threadTrack}) on the track of the task it concerns,
   * where a run slice is named by the CPU it ran on.
   */
  private void writeEvent(JsonGenerator g, byte kind, int cpuId, long at, long ns, Object what, int sym,
      boolean threadTrack) throws IOException {
    Cpu c = machine.cpuById(cpuId);
    g.writeStartObject();
    switch (kind) {
      case SLICE_TASK -> {
        g.writeStringField("name", threadTrack ? "on " + c.name() : ((Task) what).name());
        g.writeStringField("cat", "run");
      }
      case SLICE_SPIN -> {
        g.writeStringField("name", machine.symbols().name(sym));
        g.writeStringField("cat", "spin");
      }
      case SLICE_EXIT -> {
        g.writeStringField("name", "exit " + what);
        g.writeStringField("cat", "vmexit");
      }
      case INSTANT_PREEMPT -> {
        g.writeStringField("name", "preempt " + ((Task) what).name());
        g.writeStringField("cat", "preempt");
      }
      case SLICE_LOCK -> {
        g.writeStringField("name", "hold " + what);
        g.writeStringField("cat", "lock");
      }
      case INSTANT_IPI -> {
        g.writeStringField("name", "IPI from " + ((Cpu) what).name());
        g.writeStringField("cat", "ipi");
      }
      default -> {
        g.writeStringField("name", "wake " + ((Task) what).name());
        g.writeStringField("cat", "wakeup");
      }
    }
    boolean instant = kind == INSTANT_WAKE || kind == INSTANT_PREEMPT || kind == INSTANT_IPI;
    g.writeStringField("ph", instant ? "i" : "X");
    if (instant) {
      g.writeStringField("s", "t");
    }
    g.writeNumberField("ts", at / 1e3);
    if (!instant) {
      g.writeNumberField("dur", Math.max(0, ns) / 1e3);
    }
    if (threadTrack) {
      Task t = (Task) what;
      g.writeNumberField("pid", threadsPid(t));
      g.writeNumberField("tid", t.id());
    } else {
      g.writeNumberField("pid", processOf(c));
      g.writeNumberField("tid", cpuId);
    }
    if (kind == SLICE_SPIN || kind == SLICE_TASK) {
      g.writeObjectFieldStart("args");
      g.writeStringField(threadTrack ? "cpu" : "task", threadTrack ? c.name() : ((Task) what).name());
      g.writeEndObject();
    }
    g.writeEndObject();
  }

  private int processOf(Cpu c) {
    if (c.kernel() == machine.host()) {
      return 0;
    }
    int pid = 1;
    for (Vm vm : machine.vms()) {
      if (vm.guest() == c.kernel()) {
        return pid;
      }
      pid++;
    }
    return 0;
  }
}

package org.lockvisor.reports;

import java.util.Arrays;
import java.util.BitSet;
import java.util.Map;
import java.util.TreeMap;
import org.lockvisor.machine.Cpu;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.MachineTrace;
import org.lockvisor.machine.Task;
import org.lockvisor.machine.TaskState;
import org.lockvisor.machine.VcpuTask;

/**
 * Records, from the machine's trace callbacks, what the CPU-time account cannot tell: which
 * symbols were spun on (so a spin flame graph can pick them out of the account), and each task's
 * off-CPU time between being switched out and back in, split by why it left: it went to sleep
 * ({@code [sleeping]}, {@code TASK_INTERRUPTIBLE}), blocked uninterruptibly ({@code [blocked]},
 * {@code TASK_UNINTERRUPTIBLE}), or was preempted and waited on a runqueue ({@code [runqueue]}).
 * This is what {@code offcputime} from bcc reports with the state as the leaf; the simulator keeps
 * no kernel stack of a task that is off CPU, so the frame under the thread is the state.
 *
 * <p>A guest task whose vCPU is preempted is, for the guest, still on CPU; that time shows in the
 * host's off-CPU stacks of the vCPU thread ({@code [runqueue]}) and in steal time, not here.
 *
 * <p>Per event it updates primitive arrays indexed by task id (they grow, rarely, when tasks are
 * created), so recording allocates nothing in the steady state.
 */
public final class WaitRecorder implements MachineTrace {

  private static final byte SLEEPING = 0;
  private static final byte BLOCKED = 1;
  private static final byte RUNQUEUE = 2;
  static final String[] STATE_FRAMES = {"[sleeping]", "[blocked]", "[runqueue]"};

  private final Machine machine;
  private final MachineTrace next;
  private final BitSet spinSymbols = new BitSet();
  private long[] offSince = new long[256];
  private byte[] offReason = new byte[256];
  private long[][] offNs = new long[3][256];

  private WaitRecorder(Machine machine, MachineTrace next) {
    this.machine = machine;
    this.next = next;
    Arrays.fill(offSince, -1);
  }

  /**
   * Records from now on: installs itself as the machine's trace, forwarding to the previous one.
   * Tasks already off CPU start their wait now, in the state they are in.
   */
  public static WaitRecorder attach(Machine machine) {
    WaitRecorder r = new WaitRecorder(machine, machine.trace());
    long now = machine.sim().now();
    for (Task t : machine.tasks()) {
      if (t.onCpu() || t.state() == TaskState.DEAD || t.name().startsWith("swapper/")) {
        continue;
      }
      r.ensure(t.id());
      r.offSince[t.id()] = now;
      r.offReason[t.id()] = reason(t.state());
    }
    machine.setTrace(r);
    return r;
  }

  private static byte reason(TaskState state) {
    return switch (state) {
      case RUNNING -> RUNQUEUE;
      case UNINTERRUPTIBLE -> BLOCKED;
      default -> SLEEPING;
    };
  }

  @Override
  public void onSwitch(Cpu cpu, Task prev, Task nextTask) {
    next.onSwitch(cpu, prev, nextTask);
    long now = machine.sim().now();
    if (prev != null && prev != cpu.idleTask() && prev.state() != TaskState.DEAD) {
      int id = prev.id();
      ensure(id);
      offSince[id] = now;
      offReason[id] = reason(prev.state());
    }
    if (nextTask != null && nextTask != cpu.idleTask()) {
      int id = nextTask.id();
      ensure(id);
      if (offSince[id] >= 0) {
        offNs[offReason[id]][id] += now - offSince[id];
        offSince[id] = -1;
      }
    }
  }

  @Override
  public void onWake(Task task, Cpu target) {
    next.onWake(task, target);
    // Woken: from now on it waits for a CPU, not for the event.
    int id = task.id();
    if (id < offSince.length && offSince[id] >= 0 && offReason[id] != RUNQUEUE) {
      long now = machine.sim().now();
      offNs[offReason[id]][id] += now - offSince[id];
      offSince[id] = now;
      offReason[id] = RUNQUEUE;
    }
  }

  @Override
  public void onExit(VcpuTask vcpu, String reason, long start, long durationNs) {
    next.onExit(vcpu, reason, start, durationNs);
  }

  @Override
  public void onSpin(Task task, int symbol, long start, long end) {
    next.onSpin(task, symbol, start, end);
    spinSymbols.set(symbol);
  }

  @Override
  public void onLockHeld(Task holder, String lock, long start, long end) {
    next.onLockHeld(holder, lock, start, end);
  }

  @Override
  public void onLockWaited(Task waiter, String lock, long start, long end) {
    next.onLockWaited(waiter, lock, start, end);
  }

  @Override
  public void onIpi(Cpu from, Cpu to) {
    next.onIpi(from, to);
  }

  /** Whether {@code symbol} was spun on since recording started. */
  public boolean isSpinSymbol(int symbol) {
    return symbol >= 0 && spinSymbols.get(symbol);
  }

  private void ensure(int id) {
    if (id >= offSince.length) {
      int n = Math.max(id + 1, offSince.length * 2);
      int old = offSince.length;
      offSince = Arrays.copyOf(offSince, n);
      Arrays.fill(offSince, old, n, -1);
      offReason = Arrays.copyOf(offReason, n);
      for (int r = 0; r < offNs.length; r++) {
        offNs[r] = Arrays.copyOf(offNs[r], n);
      }
    }
  }

  /**
   * Off-CPU time as folded stacks ({@code kernel;thread;[state] ns}), waits still open counted up
   * to now, sorted so two runs diff cleanly.
   */
  public String offCpuFolded() {
    long now = machine.sim().now();
    Map<String, Long> weights = new TreeMap<>();
    for (Task t : machine.tasks()) {
      int id = t.id();
      if (id >= offSince.length || t.name().startsWith("swapper/")) {
        continue;
      }
      for (int r = 0; r < STATE_FRAMES.length; r++) {
        long ns = offNs[r][id];
        if (offSince[id] >= 0 && offReason[id] == r && t.state() != TaskState.DEAD) {
          ns += now - offSince[id];
        }
        if (ns > 0) {
          String kernel = t.kernel().isGuest() ? t.kernel().vm().name() : "host";
          weights.merge(frame(kernel) + ";" + frame(t.name()) + ";" + STATE_FRAMES[r], ns, Long::sum);
        }
      }
    }
    StringBuilder out = new StringBuilder();
    weights.forEach((stack, ns) -> out.append(stack).append(' ').append(ns).append('\n'));
    return out.toString();
  }

  private static String frame(String s) {
    return s.replace(' ', '_').replace(';', ':').replace('\n', '_');
  }
}

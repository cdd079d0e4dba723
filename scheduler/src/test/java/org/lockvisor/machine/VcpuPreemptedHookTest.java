package org.lockvisor.machine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.core.sim.EventHandler;
import org.lockvisor.core.sim.Simulation;
import org.lockvisor.machine.config.HypervisorConfig;
import org.lockvisor.machine.config.KernelConfig;
import org.lockvisor.scheduler.builtin.CfsScheduler;

/**
 * vcpu_is_preempted semantics, checked after every event against the true state of the vCPU
 * thread: INVOLUNTARY (modern x86 steal-time flag, kvm_sched_out with on_rq) is true exactly
 * while the thread is off CPU after being preempted while runnable — not while it sleeps in a
 * halt, nor after a kick woke it until it runs again (it left the CPU voluntarily); ANY_PUT (2016 x86: set at every vcpu_put) also while it sleeps in a halt or has
 * returned to the userspace VMM, but not while it halt-polls on CPU; NOT_DISPATCHED (PowerVM
 * yield_count odd) exactly while it is off a physical CPU.
 */
class VcpuPreemptedHookTest {
  private static final long US = 1_000;
  private static final long MS = 1_000_000;

  private enum Truth {
    IN_GUEST_OR_KERNEL, HALT_POLLING, IN_USERSPACE, PREEMPTED_OFF_CPU, WOKEN_FROM_HALT_WAITING, SLEEPING_OFF_CPU
  }

  /**
   * Whether the vCPU thread last left its CPU while runnable (an involuntary switch). A thread
   * that has not run yet counts as preempted: the machine's convention for start-up (KVM would
   * say false until the first sched-out; no guest code runs then anyway).
   */
  private boolean leftInvoluntarily = true;

  private final Simulation sim = new Simulation(1);
  private final Machine machine = new Machine(sim);

  @Test
  void hooks_vcpuThreadThroughGuestExitHaltAndPreemption_answerExactlyPerTheirSemantics() {
    // a large wakeup granularity: a kicked vCPU thread waits for the hog's tick instead of
    // preempting it, so the woken-but-not-yet-running state lasts
    Kernel host = machine.createHost("host", 1, KernelConfig.zeroCost(MS),
        new CfsScheduler(6 * MS, 750 * US, 20 * MS, CfsScheduler.Scaling.NONE, false));
    Vm vm = machine.createVm("vm", 1, KernelConfig.zeroCost(4 * MS), CfsScheduler.withDefaults(),
        new HypervisorConfig(0, 0, 50 * US), 0);
    vm.guest().setVcpuPreemptedHook(VcpuPreemptedHook.INVOLUNTARY);
    VcpuTask v = vm.vcpus().get(0);
    host.spawn("hog", Program.named("hog")
        .loopWhile(t -> true, Program.named("hog_loop").userWork(MS, "hog").build()).build(), 0);

    boolean[] ready = {false};
    Program mmioToQemu = Program.named("kvm_handle_mmio")
        .op(Ops.vmmUserspace(true)).work(200 * US, "qemu_virtio_mmio_write").op(Ops.vmmUserspace(false)).build();
    Task guestTask = vm.guest().spawn("io", Program.named("io")
        .loopWhile(t -> true, Program.named("io_loop")
            .run(t -> ready[0] = false)
            .work(8 * MS, "compute")
            .op(Ops.vmExit("MMIO", mmioToQemu))
            .op(Ops.sleepUntil(null, t -> ready[0]))
            .build())
        .build());
    EventHandler waker = new EventHandler() {
      @Override
      public void onEvent(int kind, long arg) {
        ready[0] = true;
        vm.guest().wakeUpNow(guestTask, null);
        sim.schedule(40 * MS, this, 0, 0);
      }
    };
    sim.schedule(40 * MS + 500 * US, waker, 0, 0); // between host ticks

    machine.setTrace(new MachineTrace() {
      @Override
      public void onSwitch(Cpu cpu, Task prev, Task next) {
        if (prev == v) {
          leftInvoluntarily = v.state() == TaskState.RUNNING;
        }
      }
    });
    Map<Truth, Long> time = new EnumMap<>(Truth.class);
    List<String> mismatches = new ArrayList<>();
    Truth[] last = {truth(v)};
    long[] lastAt = {0};
    sim.setObserver((now, kind, arg) -> {
      time.merge(last[0], now - lastAt[0], Long::sum);
      Truth t = truth(v);
      last[0] = t;
      lastAt[0] = now;
      boolean off = !v.onCpu();
      boolean preempted = off && leftInvoluntarily;
      check(mismatches, now, t, "INVOLUNTARY", VcpuPreemptedHook.INVOLUNTARY.isPreempted(v), preempted);
      check(mismatches, now, t, "ANY_PUT", VcpuPreemptedHook.ANY_PUT.isPreempted(v), off || t == Truth.IN_USERSPACE);
      check(mismatches, now, t, "NOT_DISPATCHED", VcpuPreemptedHook.NOT_DISPATCHED.isPreempted(v), off);
      check(mismatches, now, t, "guest vcpuIsPreempted", vm.guest().vcpuIsPreempted(vm.guest().cpu(0)), preempted);
    });
    sim.runUntil(600 * MS);

    assertThat(mismatches).isEmpty();
    assertThat(time).allSatisfy((truth, ns) -> assertThat(ns).as("time in %s", truth).isPositive());
    assertThat(time).containsOnlyKeys(Truth.values());
  }

  private Truth truth(VcpuTask v) {
    if (!v.onCpu()) {
      if (v.state() != TaskState.RUNNING) {
        return Truth.SLEEPING_OFF_CPU;
      }
      return leftInvoluntarily ? Truth.PREEMPTED_OFF_CPU : Truth.WOKEN_FROM_HALT_WAITING;
    }
    if (v.inUserspace) {
      return Truth.IN_USERSPACE;
    }
    return v.halted ? Truth.HALT_POLLING : Truth.IN_GUEST_OR_KERNEL;
  }

  private static void check(List<String> out, long now, Truth t, String hook, boolean answer, boolean expected) {
    if (answer != expected && out.size() < 10) {
      out.add(hook + " answered " + answer + " at " + now + " while " + t);
    }
  }
}

package org.lockvisor.devices.virtioblk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.lockvisor.devices.testing.TestMachines.MS;

import org.junit.jupiter.api.Test;
import org.lockvisor.core.account.CpuTimeAccount;
import org.lockvisor.core.account.SymbolTable;
import org.lockvisor.core.plugin.BoundOptions;
import org.lockvisor.devices.spi.BlockBatch;
import org.lockvisor.devices.spi.BlockRequest;
import org.lockvisor.devices.spi.DeviceContext;
import org.lockvisor.devices.testing.TestLocks;
import org.lockvisor.devices.testing.TestMachines;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Ops;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Task;
import org.lockvisor.machine.Vm;

/**
 * QEMU 2.0's main loop as {@link QemuMainLoop} runs it, against main-loop.c v2.0.0: an iteration
 * costs the sum of its parts (the pass, the ppoll and its descriptors); while a bottom half is
 * pending every iteration polls with a zero timeout and keeps the BQL, until {@code spin_counter}
 * exceeds {@code MAX_MAIN_LOOP_SPIN} and the loop forces a timeout, drops the BQL, and a waiter gets
 * it; and a notify exit is timed from the vCPU's exit to its re-entry, the round trip included.
 */
class QemuMainLoopTest {
  private static final long PASS = 3_000;
  private static final long POLL_FDS = 1_700;

  private static VirtioBlk attach(Machine m, Vm vm, VirtioBlkConfig config, VirtioBlkCosts costs) {
    VirtioBlk d = new VirtioBlk("vda", config, costs);
    d.attach(DeviceContext.of("dev", BoundOptions.none("test device"), TestMachines.X86_COSTS, new TestLocks(60), vm));
    return d;
  }

  private static VirtioBlkCosts costs() {
    return VirtioBlkCosts.from(TestMachines.X86_COSTS).withMainLoop(PASS, POLL_FDS);
  }

  /** A guest task that submits {@code n} requests in one plug once and then waits for them. */
  private static void submitOnce(Machine m, Vm vm, VirtioBlk d, int n) {
    BlockBatch batch = new BlockBatch(n);
    int[] outstanding = {n};
    Task[] self = new Task[1];
    for (int i = 0; i < n; i++) {
      BlockRequest r = d.newRequest((req, now) -> --outstanding[0] == 0 ? self[0] : null);
      r.markSubmitted(0);
      batch.add(r);
    }
    Program once = Program.named("submit_once")
        .call(d.submitPath(t -> batch))
        .op(Ops.sleepUntil(null, t -> outstanding[0] == 0))
        .op(Ops.sleepUntil(null, t -> false))
        .build();
    self[0] = vm.guest().spawn("sub", once);
  }

  private static long timeAtLeaves(Machine m, Task thread, String... leaves) {
    m.syncAccounting();
    CpuTimeAccount account = m.account();
    SymbolTable symbols = m.symbols();
    long[] sum = {0};
    account.forEachOfThread(thread.id(), (cpu, th, stack, ns) -> {
      String leaf = symbols.name(symbols.leaf(stack));
      for (String l : leaves) {
        if (l.equals(leaf)) {
          sum[0] += ns;
        }
      }
    });
    return sum[0];
  }

  @Test
  void mainLoopIteration_requestsCompleted_costsItsPassPlusPpollOverItsDescriptors() {
    Machine m = TestMachines.machine(21, 6);
    Vm vm = TestMachines.vm(m, 2);
    VirtioBlkCosts c = costs();
    VirtioBlk d = attach(m, vm, VirtioBlkConfig.defaults().withNotifyPath("userspace"), c);
    submitOnce(m, vm, d, 4);
    m.sim().runUntil(20 * MS); // done long before: the loop sleeps in its poll
    long iterations = d.stats().get("main_loop.iterations").longValue();
    assertThat(d.completed()).isEqualTo(4);
    assertThat(iterations).as("a laio wakeup, the bottom halves' zero-timeout pass, the blocking one")
        .isGreaterThanOrEqualTo(3);
    Task loop = d.mainLoopThread();
    // the sleeping iteration has paid its fill half, not yet its poll and its second half
    assertThat(timeAtLeaves(m, loop, "glib_pollfds_fill")).isEqualTo(iterations * (PASS / 2));
    assertThat(timeAtLeaves(m, loop, "glib_pollfds_poll")).isEqualTo((iterations - 1) * (PASS - PASS / 2));
    assertThat(timeAtLeaves(m, loop, "do_sys_poll")).isEqualTo((iterations - 1) * (c.syscallNs() + POLL_FDS));
    assertThat(c.mainLoopIterationNs()).isEqualTo(PASS + c.syscallNs() + POLL_FDS);
  }

  @Test
  void mainLoop_bottomHalfAlwaysPending_keepsTheBqlUntilSpinCounterExceedsMaxThenDropsIt() {
    Machine m = TestMachines.machine(22, 6);
    Vm vm = TestMachines.vm(m, 2);
    VirtioBlk d = attach(m, vm, VirtioBlkConfig.defaults().withNotifyPath("userspace"), costs());
    QemuMainLoop loop = d.mainLoop();
    Program[] busy = new Program[1];
    busy[0] = Program.named("busy_bh").work(500, "bh_work").run(t -> loop.scheduleBottomHalf(busy[0])).build();
    loop.scheduleBottomHalf(busy[0]);
    m.host().wakeUpNow(loop.thread(), null);
    long[] acquiredAt = {-1, -1, -1};
    Program waiter = Program.named("vcpu_waits_for_bql")
        .work(20_000, "kvm_arch_vcpu_ioctl_run") // starts once the loop holds the BQL
        .op(d.globalLock().lock(LockMode.SLEEPING))
        .run(t -> {
          acquiredAt[0] = d.stats().get("main_loop.bql_held_iterations").longValue();
          acquiredAt[1] = d.stats().get("main_loop.forced_timeouts").longValue();
          acquiredAt[2] = d.stats().get("main_loop.iterations").longValue();
        })
        .op(d.globalLock().unlock(LockMode.SLEEPING))
        .op(Ops.sleepUntil(null, t -> false))
        .build();
    m.host().spawn("waiter", waiter, 5);
    boolean[] seenHeld = {false};
    m.sim().setEventBudget(50_000_000);
    m.sim().setObserver((time, kind, arg) -> {
      long held = d.stats().get("main_loop.bql_held_iterations").longValue();
      if (held > 0 && d.stats().get("main_loop.forced_timeouts").longValue() == 0) {
        seenHeld[0] = true;
        assertThat(d.globalLock().owner()).as("BQL owner during the zero-timeout iterations at %s", time)
            .isSameAs(loop.thread());
      }
    });
    m.sim().runUntil(30 * MS);
    assertThat(seenHeld[0]).isTrue();
    // spin_counter runs 0..MAX_MAIN_LOOP_SPIN with the BQL kept; the next zero timeout is forced to SCALE_MS
    assertThat(acquiredAt[0]).as("zero-timeout iterations before the waiter got the BQL")
        .isEqualTo(QemuMainLoop.MAX_MAIN_LOOP_SPIN + 1);
    assertThat(acquiredAt[1]).as("forced timeouts by then").isEqualTo(1);
    assertThat(acquiredAt[2]).as("iterations by then: the held ones and the forced one")
        .isEqualTo(QemuMainLoop.MAX_MAIN_LOOP_SPIN + 2);
  }

  @Test
  void userspaceNotify_uncontended_timedFromExitToReentryWithTheRoundTrip() {
    Machine m = TestMachines.machine(23, 6);
    Vm vm = TestMachines.vm(m, 2);
    VirtioBlkCosts c = costs();
    VirtioBlk d = attach(m, vm, VirtioBlkConfig.defaults().withNotifyPath("userspace").withNotify(
        VirtioBlkConfig.NotifyMode.OUTSIDE_LOCK), c);
    submitOnce(m, vm, d, 1);
    m.sim().runUntil(5 * MS);
    assertThat(d.notifies()).isEqualTo(1);
    long roundtrip = TestMachines.hypervisor().exitRoundtripNs();
    long priced = c.userspaceExitNs() + c.mmioDispatchNs() + c.hostSubmitNs();
    // the BQL's own lock and unlock come on top of the priced work (TestLocks)
    assertThat(d.notifyExitMaxNs()).as("exit to re-entry").isBetween(roundtrip + priced, roundtrip + priced + 1_000);
    assertThat(d.notifyExitQuantileNs(0.5)).isEqualTo(d.notifyExitMaxNs());
  }
}

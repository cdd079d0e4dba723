package org.lockvisor.devices.virtioblk;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.lockvisor.devices.testing.TestMachines.MS;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.lockvisor.core.plugin.BoundOptions;
import org.lockvisor.devices.spi.BlockBatch;
import org.lockvisor.devices.spi.BlockRequest;
import org.lockvisor.devices.spi.DeviceContext;
import org.lockvisor.devices.testing.TestLocks;
import org.lockvisor.devices.testing.TestMachines;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Ops;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Task;
import org.lockvisor.machine.Vm;

/**
 * virtio-blk end to end under closed-loop submitters: every request submitted is completed or
 * still in flight (checked after every event), a ring smaller than the load goes through the
 * stop/park/restart path without losing requests, and EVENT_IDX suppresses kicks only when
 * negotiated.
 */
class VirtioBlkTest {

  /** Guest tasks that each submit {@code depth} requests in one plug and wait for all of them. */
  static final class Submitters {
    final VirtioBlk device;
    long reaped;

    Submitters(Machine m, Vm vm, VirtioBlk device, int tasks, int depth) {
      this.device = device;
      for (int j = 0; j < tasks; j++) {
        BlockBatch batch = new BlockBatch(depth);
        int[] outstanding = {0};
        Task[] self = new Task[1];
        BlockRequest[] requests = new BlockRequest[depth];
        for (int i = 0; i < depth; i++) {
          requests[i] = device.newRequest((r, now) -> {
            outstanding[0]--;
            reaped++;
            return outstanding[0] == 0 && self[0].state() != org.lockvisor.machine.TaskState.RUNNING ? self[0] : null;
          });
        }
        Program submit = device.submitPath(t -> batch);
        Program round = Program.named("submit_round")
            .run(t -> {
              batch.clear();
              for (BlockRequest r : requests) {
                r.markSubmitted(m.sim().now());
                batch.add(r);
              }
              outstanding[0] = depth;
            })
            .work(500, "io_submit")
            .call(submit)
            .op(Ops.sleepUntil(null, t -> outstanding[0] == 0))
            .build();
        self[0] = vm.guest().spawn("sub" + j, Program.named("main").loopWhile(t -> true, round).build());
      }
    }
  }

  private static VirtioBlk attach(Machine m, Vm vm, VirtioBlkConfig config) {
    VirtioBlk d = new VirtioBlk("vda", config, VirtioBlkCosts.from(TestMachines.X86_COSTS));
    d.attach(DeviceContext.of("dev", BoundOptions.none("test device"), TestMachines.X86_COSTS, new TestLocks(60), vm));
    return d;
  }

  private static void runChecked(Machine m, VirtioBlk d, long until) {
    m.sim().setEventBudget(50_000_000);
    m.sim().setObserver((time, kind, arg) -> {
      assertThat(d.inFlight()).as("in flight at %s", time).isNotNegative();
      assertThat(d.virtqueue().outstanding()).isLessThanOrEqualTo(d.virtqueue().size());
    });
    m.sim().runUntil(until);
  }

  @Test
  void closedLoop_fourSubmitters_completesAndConservesRequests() {
    Machine m = TestMachines.machine(1, 4);
    Vm vm = TestMachines.vm(m, 4);
    VirtioBlk d = attach(m, vm, VirtioBlkConfig.defaults());
    Submitters s = new Submitters(m, vm, d, 4, 4);
    runChecked(m, d, 20 * MS);
    assertThat(d.completed()).isGreaterThan(100);
    assertThat(d.submitted()).isEqualTo(d.completed() + d.inFlight());
    assertThat(s.reaped).isEqualTo(d.completed());
    assertThat(d.inFlight()).isBetween(0L, 16L);
    assertThat(d.vqLock().owner()).isNull();
    if (Boolean.getBoolean("lockvisor.print")) {
      System.out.println(d.stats());
    }
  }

  @Test
  void closedLoop_ringSmallerThanLoad_stopsParksAndRestartsWithoutLoss() {
    // without indirect descriptors a request takes 3 descriptors but the tag space is half the
    // ring (virtblk_probe), so 4 tags x 3 descriptors overflow an 8-entry ring
    Machine m = TestMachines.machine(2, 4);
    Vm vm = TestMachines.vm(m, 4);
    VirtioBlk d = attach(m, vm, VirtioBlkConfig.defaults().withQueueSize(8).withIndirect(false));
    new Submitters(m, vm, d, 4, 4);
    runChecked(m, d, 10 * MS);
    long half = d.completed();
    m.sim().runUntil(20 * MS);
    assertThat(d.stats().get("hw_queue_stops").longValue()).isPositive();
    assertThat(d.stats().get("parked").longValue()).isPositive();
    assertThat(d.completed()).isGreaterThan(half); // still making progress: no lost restart
    assertThat(d.submitted()).isEqualTo(d.completed() + d.inFlight());
  }

  @Test
  void closedLoop_moreRequestsThanTags_submittersWaitForTagsAndRingNeverFills() {
    Machine m = TestMachines.machine(2, 4);
    Vm vm = TestMachines.vm(m, 4);
    VirtioBlk d = attach(m, vm, VirtioBlkConfig.defaults().withQueueSize(4)); // indirect: 4 tags, 4 slots
    new Submitters(m, vm, d, 4, 4);
    runChecked(m, d, 10 * MS);
    long half = d.completed();
    m.sim().runUntil(20 * MS);
    assertThat(d.stats().get("tag_waits").longValue()).isPositive();
    assertThat(d.stats().get("vq.ring_full").longValue()).isZero();
    assertThat(d.stats().get("hw_queue_stops").longValue()).isZero();
    assertThat(d.completed()).isGreaterThan(half);
    assertThat(d.submitted()).isEqualTo(d.completed() + d.inFlight());
  }

  @Test
  void completionInterrupt_runningVcpu_exitsUnlessPosted() {
    long[] exits = new long[2];
    for (int posted = 0; posted < 2; posted++) {
      Machine m = TestMachines.machine(5, 5);
      Vm vm = TestMachines.vm(m, 4);
      VirtioBlk d = attach(m, vm, VirtioBlkConfig.defaults().withVmmCpu(4).withPostedInterrupts(posted == 1));
      new Submitters(m, vm, d, 4, 4);
      runChecked(m, d, 20 * MS);
      exits[posted] = d.stats().get("interrupt_exits").longValue();
      assertThat(d.stats().get("vq.interrupts").longValue()).isPositive();
    }
    assertThat(exits[0]).as("2014: a busy irq vCPU takes an exit per interrupt").isPositive();
    assertThat(exits[1]).as("posted interrupts: none").isZero();
  }

  @Test
  void kicks_eventIdxNegotiated_someSuppressed() {
    Machine m = TestMachines.machine(3, 6);
    Vm vm = TestMachines.vm(m, 4);
    VirtioBlk d = attach(m, vm, VirtioBlkConfig.defaults());
    new Submitters(m, vm, d, 4, 2);
    m.sim().runUntil(20 * MS);
    assertThat(d.virtqueue().kicksSuppressed()).isPositive();
    assertThat(d.notifies()).isEqualTo(d.virtqueue().kicks());
  }

  @Test
  void kicks_eventIdxOff_noneSuppressed() {
    Machine m = TestMachines.machine(3, 6);
    Vm vm = TestMachines.vm(m, 4);
    VirtioBlk d = attach(m, vm, VirtioBlkConfig.defaults().withEventIdx(false));
    new Submitters(m, vm, d, 4, 2);
    m.sim().runUntil(20 * MS);
    assertThat(d.virtqueue().kicksSuppressed()).isZero(); // 2014 QEMU never sets NO_NOTIFY
    assertThat(d.virtqueue().kicks()).isPositive();
  }

  @Test
  void factory_unknownOption_failsWithSuggestion() {
    assertThatThrownBy(() -> VirtioBlkFactory.config(Map.of("notfy", "inside-lock", "irq-cpu", "-2")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown option [notfy]; known: [")
        .hasMessageContaining("did you mean [notify]?")
        .hasMessageContaining("option [irq-cpu] [-2] is out of range; allowed: [-1, 4096]");
  }

  @Test
  void factory_queueSizeNotPowerOfTwo_rejected() {
    assertThatThrownBy(() -> VirtioBlkFactory.config(Map.of("queue-size", "100")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("power of two");
  }

  @Test
  void factory_options_bindToConfig() {
    VirtioBlkConfig c = VirtioBlkFactory.config(Map.of("notify", "inside-lock", "notify-path", "userspace",
        "queue-size", "256", "event-idx", "false"));
    assertThat(c.notifyMode()).isEqualTo(VirtioBlkConfig.NotifyMode.INSIDE_LOCK);
    assertThat(c.notifyPath()).isEqualTo("userspace");
    assertThat(c.queueSize()).isEqualTo(256);
    assertThat(c.eventIdx()).isFalse();
  }
}

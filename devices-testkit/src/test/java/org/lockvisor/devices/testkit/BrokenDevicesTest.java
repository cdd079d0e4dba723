package org.lockvisor.devices.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.collect.ImmutableMap;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.lockvisor.core.sim.EventHandler;
import org.lockvisor.devices.spi.BlockBatch;
import org.lockvisor.devices.spi.BlockCompletion;
import org.lockvisor.devices.spi.BlockDevice;
import org.lockvisor.devices.spi.BlockRequest;
import org.lockvisor.devices.spi.Device;
import org.lockvisor.devices.spi.DeviceContext;
import org.lockvisor.devices.spi.DeviceFactory;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Ops;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Task;

/**
 * The kit can fail: a device that completes without waking the submitter, one that completes a
 * request twice, and one that drops every tenth request are each caught by the testbed's records.
 */
class BrokenDevicesTest {

  enum Fault { NO_WAKE, TWICE, DROP }

  /** Completes each request from an interrupt on CPU 0 after 20 us, with one fault. */
  private static final class Broken implements BlockDevice, EventHandler {
    private final Fault fault;
    private final ArrayDeque<BlockRequest> pending = new ArrayDeque<>();
    private final ArrayDeque<BlockRequest> expired = new ArrayDeque<>();
    private Machine machine;
    private DeviceContext context;
    private Program irq;
    private long n;

    Broken(Fault fault) {
      this.fault = fault;
    }

    @Override
    public String name() {
      return "broken";
    }

    @Override
    public String model() {
      return "broken";
    }

    @Override
    public void attach(DeviceContext c) {
      this.context = c;
      this.machine = c.machine();
      Program one = Program.named("broken_complete").op(Ops.wake(t -> {
        BlockRequest r = expired.poll();
        r.markCompleted(machine.sim().now());
        Task wake = r.completion().complete(r, machine.sim().now());
        if (fault == Fault.TWICE) {
          r.completion().complete(r, machine.sim().now());
        }
        return fault == Fault.NO_WAKE ? null : wake;
      })).build();
      this.irq = Program.interruptHandler("broken_irq").loopWhile(t -> !expired.isEmpty(), one).build();
    }

    @Override
    public BlockRequest newRequest(BlockCompletion completion) {
      return new BlockRequest(completion, null);
    }

    @Override
    public Program submitPath(Function<Task, BlockBatch> batchOf) {
      Program one = Program.named("broken_queue_rq").work(100, "broken_queue_rq").run(t -> {
        BlockBatch b = batchOf.apply(t);
        if (fault != Fault.DROP || ++n % 10 != 0) {
          pending.add(b.current());
          machine.sim().schedule(20_000, this, 0, 0);
        }
        b.advance();
      }).build();
      return Program.named("broken_submit").loopWhile(t -> batchOf.apply(t).hasNext(), one).build();
    }

    @Override
    public void onEvent(int kind, long arg) {
      expired.add(pending.poll());
      context.vm().guest().cpu(0).raiseInterrupt(irq);
    }

    @Override
    public long submitted() {
      return 0;
    }

    @Override
    public long completed() {
      return 0;
    }

    @Override
    public long inFlight() {
      return pending.size() + expired.size();
    }

    @Override
    public ImmutableMap<String, Number> stats() {
      return ImmutableMap.of();
    }

    @Override
    public void resetStats() {}
  }

  private static DeviceFactory factory(Fault fault) {
    return new DeviceFactory() {
      @Override
      public String name() {
        return "broken";
      }

      @Override
      public String summary() {
        return "a device with a fault";
      }

      @Override
      public Device create(DeviceContext context) {
        return new Broken(fault);
      }
    };
  }

  private static DeviceTestbed drained(Fault fault) {
    DeviceTestbed bed = DeviceTestbed.builder(factory(fault)).build();
    bed.runUntil(BlockDeviceContractTest.RUN_NS);
    bed.stopSubmitting();
    bed.runUntil(BlockDeviceContractTest.RUN_NS + BlockDeviceContractTest.DRAIN_NS);
    return bed;
  }

  @Test
  void noWake_submittersStall() {
    DeviceTestbed bed = drained(Fault.NO_WAKE);

    assertThat(bed.reapedPerSubmitter()).allSatisfy(reaped -> assertThat(reaped).isLessThanOrEqualTo(10L));
  }

  @Test
  void twice_completionErrorRecorded() {
    DeviceTestbed bed = drained(Fault.TWICE);

    assertThat(bed.completionErrors()).isPositive();
    assertThat(bed.firstCompletionError()).contains("completed twice");
  }

  @Test
  void drop_unfinishedSlots() {
    DeviceTestbed bed = drained(Fault.DROP);

    assertThat(bed.unfinishedSlots()).isPositive();
    assertThat(bed.completed()).isLessThan(bed.submitted());
  }
}

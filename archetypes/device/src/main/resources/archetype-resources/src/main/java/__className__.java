package ${package};

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;

import com.google.common.collect.ImmutableMap;
import java.util.ArrayDeque;
import java.util.function.Function;
import org.lockvisor.arch.spi.CostKey;
import org.lockvisor.core.sim.EventHandler;
import org.lockvisor.devices.spi.BlockBatch;
import org.lockvisor.devices.spi.BlockCompletion;
import org.lockvisor.devices.spi.BlockDevice;
import org.lockvisor.devices.spi.BlockRequest;
import org.lockvisor.devices.spi.DeviceContext;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Ops;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Task;

/**
 * Linux's {@code null_blk} (drivers/block/null_blk.c, v3.13, blk-mq mode), a block device with no
 * backend: {@code null_queue_rq -> null_handle_cmd} either ends the command inline ({@code
 * irqmode=0}) or, in timer mode ({@code irqmode=2}), {@code null_cmd_end_timer} adds it to the
 * submitting CPU's {@code completion_queue} list and, when that list was empty, starts the CPU's
 * hrtimer for {@code completion_nsec}; {@code null_cmd_timer_expired} then ends every command on
 * that CPU's list ({@code llist_del_all}), so a command queued while the timer is pending completes
 * with it, early. {@code end_cmd -> blk_mq_end_io} completes the request to its owner.
 *
 * <p>The completion protocol every block device follows: stamp the request ({@code
 * BlockRequest.markCompleted}), call {@code request.completion().complete(request, now)}, and
 * wake the task it returns ({@code Ops.wake}), in the completing context. Here the completing
 * context is the timer interrupt on the submitting guest CPU: it runs when that vCPU runs, so a
 * preempted vCPU delays its completions but never loses them. The per-CPU lists are indexed by
 * {@code t.cpu().index()} in the handler, as the kernel's {@code per_cpu(..., smp_processor_id())}.
 *
 * <p>Costs come from the arch profile: {@code CostKey.BLK_MQ_SUBMIT} per {@code queue_rq}, {@code
 * CostKey.IRQ_ENTRY} per timer interrupt, {@code CostKey.BLK_MQ_COMPLETE} per ended command. The
 * hot path allocates nothing: the per-CPU lists are array deques sized once.
 */
final class ${className} implements BlockDevice, EventHandler {

  private static final int EV_TIMER = 1;

  private final String name;
  private final boolean timerMode;
  private final long completionNs;
  private Machine machine;
  private Kernel guest;
  private ArrayDeque<BlockRequest>[] completionQueues;
  private Program timerInterrupt;
  private long submitNs;
  private long completeNs;
  private long irqEntryNs;
  private long submitted;
  private long completed;
  private long timerInterrupts;

  ${className}(String name, boolean timerMode, long completionNs) {
    checkArgument(name != null && !name.isBlank(), "device needs a name");
    checkArgument(completionNs > 0, "completion-nsec must be positive: %s", completionNs);
    this.name = name;
    this.timerMode = timerMode;
    this.completionNs = completionNs;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String model() {
    return ${className}Factory.NAME;
  }

  @Override
  @SuppressWarnings("unchecked") // an array of a generic type, filled below
  public void attach(DeviceContext context) {
    checkState(machine == null, "%s is attached already", name);
    this.machine = context.machine();
    this.guest = context.vm().guest();
    this.submitNs = context.costs().ns(CostKey.BLK_MQ_SUBMIT);
    this.completeNs = context.costs().ns(CostKey.BLK_MQ_COMPLETE);
    this.irqEntryNs = context.costs().ns(CostKey.IRQ_ENTRY);
    this.completionQueues = new ArrayDeque[guest.cpuCount()];
    for (int i = 0; i < completionQueues.length; i++) {
      completionQueues[i] = new ArrayDeque<>(64);
    }
    Program endCmd = Program.named("end_cmd")
        .work(completeNs, "blk_mq_end_io")
        .op(Ops.wake(t -> endCmd(completionQueues[t.cpu().index()].poll())))
        .build();
    this.timerInterrupt = Program.interruptHandler("hrtimer_interrupt")
        .work(irqEntryNs, "hrtimer_interrupt")
        .run(t -> timerInterrupts++)
        .loopWhile(t -> !completionQueues[t.cpu().index()].isEmpty(), endCmd)
        .build();
  }

  @Override
  public BlockRequest newRequest(BlockCompletion completion) {
    return new BlockRequest(completion, null);
  }

  @Override
  public Program submitPath(Function<Task, BlockBatch> batchOf) {
    checkState(machine != null, "%s: submitPath before attach", name);
    Program endInline = Program.named("end_cmd")
        .work(completeNs, "blk_mq_end_io")
        .op(Ops.wake(t -> endCmd(batchOf.apply(t).current())))
        .build();
    Program queueRq = Program.named("null_queue_rq")
        .work(submitNs, "null_queue_rq")
        .run(t -> submitted++)
        .op(Ops.call(t -> timerMode ? null : endInline))
        .run(t -> {
          BlockBatch batch = batchOf.apply(t);
          if (timerMode) {
            endTimer(t.cpu().index(), batch.current());
          }
          batch.advance();
        })
        .build();
    return Program.named("blk_mq_run_hw_queue")
        .loopWhile(t -> batchOf.apply(t).hasNext(), queueRq)
        .build();
  }

  /** null_cmd_end_timer: queue on this CPU's list; the first command on an empty list starts the timer. */
  private void endTimer(int cpu, BlockRequest request) {
    ArrayDeque<BlockRequest> queue = completionQueues[cpu];
    boolean wasEmpty = queue.isEmpty();
    queue.add(request);
    if (wasEmpty) {
      machine.sim().schedule(completionNs, this, EV_TIMER, cpu);
    }
  }

  /** The hrtimer expired: its interrupt runs on the CPU that armed it. */
  @Override
  public void onEvent(int kind, long arg) {
    guest.cpu((int) arg).raiseInterrupt(timerInterrupt);
  }

  /** end_cmd: the completion protocol; returns the task to wake. */
  private Task endCmd(BlockRequest request) {
    checkState(request != null, "%s: timer interrupt with an empty completion queue", name);
    long now = machine.sim().now();
    completed++;
    request.markCompleted(now);
    return request.completion().complete(request, now);
  }

  @Override
  public long submitted() {
    return submitted;
  }

  @Override
  public long completed() {
    return completed;
  }

  @Override
  public long inFlight() {
    long n = 0;
    for (ArrayDeque<BlockRequest> queue : completionQueues) {
      n += queue.size();
    }
    return n;
  }

  @Override
  public ImmutableMap<String, Number> stats() {
    return ImmutableMap.of("submitted", submitted, "completed", completed, "timer_interrupts", timerInterrupts,
        "in_flight", inFlight());
  }

  @Override
  public void resetStats() {
    submitted = 0;
    completed = 0;
    timerInterrupts = 0;
  }
}

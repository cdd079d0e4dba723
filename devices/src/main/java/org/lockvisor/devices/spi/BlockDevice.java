package org.lockvisor.devices.spi;

import java.util.function.Function;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Task;

/**
 * A guest block device as block workloads see it: the path from a plugged batch of requests to
 * the driver ({@code blk_finish_plug -> blk_mq_run_hw_queue -> queue_rq}) and, later, completion
 * of each request to the workload from the device's interrupt handler.
 *
 * <p>Requests are allocated once per workload slot with {@link #newRequest} and reused, so the
 * I/O path allocates nothing per request.
 */
public interface BlockDevice extends Device {

  /** A new reusable request whose completions are delivered to {@code completion}. */
  BlockRequest newRequest(BlockCompletion completion);

  /**
   * The program a submitting guest task runs to dispatch the batch that {@code batch} returns
   * for it: each request goes to the driver with {@code last} set on the final one (REQ_END),
   * so the driver may batch its notification. A device with a limited tag space may make the
   * submitter sleep for tags (dispatching what it has tagged first, {@link BlockBatch#flushUpTo}).
   * When the hardware queue is stopped or the ring is full, requests are parked on the hardware
   * queue's dispatch list and a block-layer worker dispatches them once the queue restarts; either
   * way every request of the batch is in flight when the program returns. Build it once per
   * workload, not per request.
   */
  Program submitPath(Function<Task, BlockBatch> batch);

  /** Requests accepted by {@link #submitPath} so far (since the last reset). */
  long submitted();

  /** Requests completed to their owners so far (since the last reset). */
  long completed();

  /** Requests accepted and not yet completed (in the ring, the VMM, the backend or parked). */
  long inFlight();
}

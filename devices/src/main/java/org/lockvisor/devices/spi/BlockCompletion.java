package org.lockvisor.devices.spi;

import org.lockvisor.machine.Task;

/**
 * Receives a completed request in the completion context (the device's interrupt handler,
 * {@code blk_mq_complete_request -> ... -> aio_complete}) and says which task to wake.
 */
@FunctionalInterface
public interface BlockCompletion {

  /**
   * Request {@code request} completed at {@code nowNs}. Returns the task the completion path
   * must wake (a waiter sleeping on the request or its AIO context), or null if none sleeps.
   */
  Task complete(BlockRequest request, long nowNs);
}

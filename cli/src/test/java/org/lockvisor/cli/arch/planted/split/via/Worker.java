package org.lockvisor.cli.arch.planted.split.via;

/**
 * Planted for {@code SplitClassesTest}: a part that never names its origin but calls back into it
 * through the shared state it was given.
 *
 * <p>Split out of {@link Device}.
 */
final class Worker {

  private final DeviceState state;

  Worker(DeviceState state) {
    this.state = state;
  }

  int step() {
    return state.device.queues();
  }
}

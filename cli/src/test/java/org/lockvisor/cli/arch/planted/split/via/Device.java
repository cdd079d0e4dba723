package org.lockvisor.cli.arch.planted.split.via;

/** Planted for {@code SplitClassesTest}: a device that builds its shared state first, then its part. */
public final class Device {

  private final DeviceState state = new DeviceState(this);
  private final Worker worker = new Worker(state);

  public int run() {
    return worker.step();
  }

  public int queues() {
    return 4;
  }
}

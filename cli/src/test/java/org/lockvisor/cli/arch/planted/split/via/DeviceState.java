package org.lockvisor.cli.arch.planted.split.via;

/** Planted for {@code SplitClassesTest}: shared state that (wrongly) keeps the device it was built for. */
final class DeviceState {

  final Device device;

  DeviceState(Device device) {
    this.device = device;
  }
}

package org.lockvisor.devices.spi;

/**
 * Cost constants by key, in ns. The composition root adapts the arch profile's cost table to
 * this interface; a key the profile does not know falls back to the device's documented
 * estimate. Keys are dotted lower-case, e.g. {@code virtio-blk.guest.add-ns}.
 */
@FunctionalInterface
public interface CostSource {

  /** The cost for {@code key}, or {@code estimate} when the profile has none. */
  long cost(String key, long estimate);

  /** No profile: every cost is the device's own documented estimate. */
  CostSource ESTIMATES = (key, estimate) -> estimate;
}

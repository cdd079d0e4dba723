package org.lockvisor.devices.spi;

import com.google.common.collect.ImmutableMap;

/**
 * One device instance of a VM: its guest-side driver paths (programs run by guest tasks and
 * interrupt handlers), its host-side emulation (host threads competing for physical CPUs) and
 * its backend.
 *
 * <p>Life cycle: created by its {@link DeviceFactory}, {@link #attach attached} once to a VM
 * before the simulation runs (this creates its locks and spawns its host and guest threads),
 * then read through {@link #stats()}; {@link #resetStats()} is called at the end of warm-up.
 */
public interface Device {

  /** Instance name, e.g. {@code vdb}. */
  String name();

  /** The plugin name of the model, e.g. {@code virtio-blk}. */
  String model();

  /**
   * Wires the device into {@code context.vm()}; called once, before the simulation runs, with the
   * context the factory created it with, the machine now built.
   */
  void attach(DeviceContext context);

  /**
   * The device's figures, in a stable order: counters and times named after the kernel or VMM
   * concept they count (e.g. {@code kicks}, {@code kicks_suppressed},
   * {@code vq_lock_spin_ns.virtio_queue_rq}). Values are a snapshot.
   */
  ImmutableMap<String, Number> stats();

  /** Forgets statistics gathered so far (end of warm-up); state is kept. */
  void resetStats();
}

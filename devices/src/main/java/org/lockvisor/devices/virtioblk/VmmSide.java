package org.lockvisor.devices.virtioblk;

import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Task;

/** What a {@link NotifyPath} may use of the device model on the host. */
public interface VmmSide {

  VirtioBlkCosts costs();

  /** The VMM's global lock (QEMU's BQL), or null when the model runs without it. */
  KernelLock globalLock();

  /** {@code virtio_blk_handle_output}: pops every new request and submits it to the backend. */
  Program handleOutput();

  /** Marks the ioeventfd as signalled (the main loop will run handle_output). */
  void signalMainLoop();

  /** The VMM's main-loop thread on the host. */
  Task mainLoopThread();
}

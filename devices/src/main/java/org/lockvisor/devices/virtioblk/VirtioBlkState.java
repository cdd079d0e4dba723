package org.lockvisor.devices.virtioblk;

import static com.google.common.base.Preconditions.checkArgument;

import org.lockvisor.devices.spi.DeviceContext;
import org.lockvisor.devices.spi.Virtqueue;
import org.lockvisor.locking.spi.KernelLock;
import org.lockvisor.locking.spi.LockFactory.LockKind;
import org.lockvisor.locking.spi.LockMode;
import org.lockvisor.machine.Kernel;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Program;
import org.lockvisor.machine.Vm;

/**
 * What the guest driver ({@link VirtioBlk}) and the host's device model ({@link QemuVmm}) of one
 * attached virtio-blk share: the machine and its two kernels, the costs, {@code vq_lock} and the
 * VMM's global lock (QEMU's BQL), the virtqueue and the device-side ring behaviour, and the
 * interrupt between them: the virtio-mmio ISR bit and line level, the kick IPI pending on each
 * guest CPU, and the guest's interrupt handler the device model raises. Built first at attach (the
 * locks in the order the device always created them) and handed to the device model and the
 * statistics ({@link VirtioBlkStats}); none of them reaches the device.
 *
 * <p>Split out of {@link VirtioBlk}.
 */
final class VirtioBlkState {
  final String name;
  final String vmName;
  final VirtioBlkConfig config;
  final VirtioBlkCosts costs;
  final Machine machine;
  final Kernel guest;
  final Kernel host;
  final KernelLock vqLock;
  /** QEMU's global mutex; null without it or with x-data-plane. */
  final KernelLock bql;
  final Virtqueue vq;
  final QueuePolicy policy;

  // the interrupt from the device model to the guest
  /** virtio-mmio level interrupt: the device's ISR bit, and the line as KVM_IRQ_LINE left it. */
  boolean isr;
  boolean lineHigh;
  /** Per guest CPU: the injection's kick IPI will exit the running vCPU before the handler runs. */
  final boolean[] forcedExitPending;
  /** The guest's completion interrupt handler ({@code vring_interrupt} or {@code vm_interrupt}), set by the driver. */
  Program vringInterrupt;

  /**
   * Creates the locks and the ring of device {@code name} in {@code ctx}'s VM with {@code costs}
   * (null: the arch profile's) and {@code policy} (null: the one the {@code queue-policy} option
   * selects).
   */
  VirtioBlkState(DeviceContext ctx, String name, VirtioBlkConfig config, VirtioBlkCosts costs, QueuePolicy policy) {
    Vm vm = ctx.vm();
    this.name = name;
    this.vmName = vm.name();
    this.config = config;
    this.machine = ctx.machine();
    this.guest = vm.guest();
    this.host = machine.host();
    this.costs = costs != null ? costs : VirtioBlkCosts.from(ctx.costs());
    this.vqLock = ctx.locks().create(guest, name + ".vq_lock", LockKind.SPINLOCK);
    checkArgument(vqLock.supports(LockMode.IRQSAVE), "vq_lock algorithm %s does not support IRQSAVE", vqLock.algorithm());
    if (config.vmmGlobalLock() && config.vmm() != VirtioBlkConfig.Vmm.QEMU_2_0_DATAPLANE) {
      // the dataplane thread never takes the BQL, and nothing else of this device does
      this.bql = ctx.locks().create(host, vm.name() + ".qemu_global_mutex", LockKind.MUTEX);
      checkArgument(bql.supports(LockMode.SLEEPING), "VMM lock algorithm %s does not support SLEEPING", bql.algorithm());
    } else {
      this.bql = null;
    }
    this.vq = new Virtqueue(name + ".vq0", config.queueSize(), config.eventIdx());
    this.forcedExitPending = new boolean[guest.cpuCount()];
    this.policy = policy != null ? policy : config.resolveQueuePolicy();
  }

  /** QEMU 2.0 {@code x-data-plane}: its own thread, no BQL. */
  boolean dataplane() {
    return config.vmm() == VirtioBlkConfig.Vmm.QEMU_2_0_DATAPLANE;
  }

  /** A level-triggered virtio-mmio interrupt line (else an MSI). */
  boolean mmioLevel() {
    return config.interruptTransport() == VirtioBlkConfig.InterruptTransport.MMIO_LEVEL;
  }
}

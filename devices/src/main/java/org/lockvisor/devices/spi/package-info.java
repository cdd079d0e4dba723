/**
 * Device plugin SPI: a {@link org.lockvisor.devices.spi.DeviceFactory} per device model, the
 * {@link org.lockvisor.devices.spi.Device} it attaches to a VM, and the block-device contract
 * ({@link org.lockvisor.devices.spi.BlockDevice}, {@link org.lockvisor.devices.spi.BlockRequest})
 * that block workloads such as fio submit through, and the virtio split ring
 * ({@link org.lockvisor.devices.spi.Virtqueue}) every virtio device model shares.
 *
 * <p>Depends only on the JDK, Guava, core's plugin API, the machine and the lock SPI, so that
 * third-party devices build against it alone. A device gets everything from its one {@link
 * org.lockvisor.devices.spi.DeviceContext}: bound options, the arch profile's costs ({@link
 * org.lockvisor.arch.spi.ArchCosts}, never experiment options: one profile serves every
 * experiment) and the kernel locks ({@link org.lockvisor.locking.spi.KernelLocks}).
 */
package org.lockvisor.devices.spi;

/**
 * Device plugin SPI: a {@link org.lockvisor.devices.spi.DeviceFactory} per device model, the
 * {@link org.lockvisor.devices.spi.Device} it attaches to a VM, and the block-device contract
 * ({@link org.lockvisor.devices.spi.BlockDevice}, {@link org.lockvisor.devices.spi.BlockRequest})
 * that block workloads such as fio submit through, and the virtio split ring
 * ({@link org.lockvisor.devices.spi.Virtqueue}) every virtio device model shares.
 *
 * <p>Depends only on the JDK, Guava, core's plugin API, the machine and the lock SPI, so that
 * third-party devices build against it alone. Costs reach a device through
 * {@link org.lockvisor.devices.spi.CostSource} (filled from the arch profile by the composition
 * root), never through experiment options: one profile serves every experiment.
 */
package org.lockvisor.devices.spi;

/**
 * Workload plugin SPI: a {@link org.lockvisor.workloads.spi.WorkloadFactory} per benchmark and
 * the {@link org.lockvisor.workloads.spi.Workload} it starts inside a VM, both handed one {@link
 * org.lockvisor.workloads.spi.WorkloadContext}. Depends only on the JDK, Guava, core's plugin API,
 * the arch profile's cost view, the machine and the lock SPI: not on the devices module (a
 * workload asks its context for the device class it drives).
 */
package org.lockvisor.workloads.spi;

/**
 * Workload plugin SPI: a {@link org.lockvisor.workloads.spi.WorkloadFactory} per benchmark and
 * the {@link org.lockvisor.workloads.spi.Workload} it starts inside a VM. Depends only on the
 * JDK, Guava, core's plugin API, the machine and the device SPI.
 */
package org.lockvisor.workloads.spi;

/**
 * Arch profile SPI: the priced constants ({@link org.lockvisor.arch.spi.CostKey},
 * {@link org.lockvisor.arch.spi.CostTable}), host topology, and hypervisor behaviour
 * (vcpu_is_preempted semantics, spin trapping, halt polling, notify path) that the scheduler,
 * lock and device models read.
 *
 * <p>Depends only on the JDK, Guava and {@code org.lockvisor.core.plugin}; held by
 * {@code SpiDependencyTest}. Third-party profiles implement
 * {@link org.lockvisor.arch.spi.ArchProfileFactory} against this package alone.
 */
package org.lockvisor.arch.spi;

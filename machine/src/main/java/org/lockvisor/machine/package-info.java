/**
 * The machine: physical CPUs running host tasks, vCPU threads whose guest mode is a guest CPU,
 * guest tasks, programs of ops and their interpreter, interrupts, IPIs, VM exits, halt and kick.
 *
 * <p>This package is the kernel API that the lock, device, workload and scheduler SPIs build on;
 * it depends only on {@code core}, the JDK and Guava.
 */
package org.lockvisor.machine;

/**
 * The {@code locktorture} workload: the kernel's lock torture test module
 * ({@code kernel/locking/locktorture.c}) as guest kthreads hammering one lock, reporting
 * acquisitions per thread (Total, Max/Min) and throughput.
 */
package org.lockvisor.workloads.locktorture;

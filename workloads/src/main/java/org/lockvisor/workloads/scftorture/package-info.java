/**
 * The {@code scftorture} workload: the kernel's {@code smp_call_function()} torture test
 * ({@code kernel/scftorture.c}) as guest kthreads, one per CPU, that call functions on other CPUs
 * and spin in {@code csd_lock_wait} until they ran: a load that spins on IPIs.
 */
package org.lockvisor.workloads.scftorture;

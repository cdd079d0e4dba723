package org.lockvisor.workloads.scftorture;

import static com.google.common.base.Preconditions.checkArgument;

import java.util.List;

/**
 * scftorture module parameters (the subset that shapes the load), named after the kernel's.
 *
 * @param primitive {@code single} (smp_call_function_single to one random CPU, the module's
 *     SCF_PRIM_SINGLE) or {@code all} (smp_call_function to every other online CPU, SCF_PRIM_ALL)
 * @param waits whether the caller waits for the function to run ({@code weight_single_wait} /
 *     {@code weight_all_wait}): it spins in {@code csd_lock_wait}
 * @param nthreads invoker kthreads, each bound to CPU {@code i % ncpus}; 0 for one per vCPU (the
 *     module's {@code nthreads=-1})
 * @param handlerNs time {@code scf_handler} runs on the target CPU, after the interrupt entry
 * @param thinkNs work between two calls (the module has none but the preempt_enable between them)
 */
public record ScfTortureConfig(String primitive, boolean waits, int nthreads, long handlerNs, long thinkNs) {

  /** The primitives modelled. */
  public static final List<String> PRIMITIVES = List.of("single", "all");

  public ScfTortureConfig {
    checkArgument(PRIMITIVES.contains(primitive), "primitive [%s] is not one of %s", primitive, PRIMITIVES);
    checkArgument(nthreads >= 0, "nthreads must not be negative: %s", nthreads);
    checkArgument(handlerNs >= 0 && thinkNs >= 0, "handler and think times must not be negative");
  }

  /** Invoker kthreads on a guest of {@code cpus} CPUs. */
  public int threads(int cpus) {
    return nthreads == 0 ? cpus : nthreads;
  }
}

package org.lockvisor.reproductions.vcpupreempted;

/**
 * The scale of one R3 reproduction run: the PowerVM row's processors and {@code -g}, the KVM row's
 * CPUs and {@code -g}, and the simulated-time limit of each run; {@link #FULL} for {@code reproduce
 * vcpu-preempted}, {@link #QUICK} for {@code --quick}. Read by the reproduction and by its declared
 * parameters' defaults ({@link VcpuPreemptedParameters}).
 *
 * <p>The full scale is the seed's own {@code perf bench sched messaging -g 400} (16,000 tasks, issue
 * 37): the verdict is taken there. Its baseline runs ~18 s of simulated time, so the limit is the
 * 600 s any {@code --set groups} gets ({@link VcpuPreemptedParameters#GROUPS_LIMIT_NS}).
 *
 * <p>Split out of {@link VcpuPreemptedReproduction}.
 */
record Scale(int powervmCpus, int powervmGroups, int kvmCpus, int kvmGroups, long limitNs) {

  static final Scale FULL = new Scale(8, 400, 4, 10, VcpuPreemptedParameters.GROUPS_LIMIT_NS);
  static final Scale QUICK = new Scale(4, 6, 4, 4, 30_000_000_000L);
}

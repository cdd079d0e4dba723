package org.lockvisor.experiment.model;

/**
 * The host: physical CPUs, scheduler, kernel preemption model and lock algorithms.
 *
 * @param cpus physical CPUs; 0 takes the arch profile's default topology
 * @param scheduler the host scheduler plugin and its options
 * @param preemptible CONFIG_PREEMPT in the host kernel
 * @param exclusivePinning no two pinned vCPU threads may share a physical CPU
 * @param locks the host kernel's lock algorithms (used by host-side device paths)
 * @param kernel the host kernel's wakeup behaviour (ttwu-queue, ttwu-waits-on-cpu)
 */
public record HostSpec(int cpus, Choice scheduler, boolean preemptible, boolean exclusivePinning, LockChoices locks,
    KernelSpec kernel) {
  public static final String DEFAULT_SCHEDULER = "cfs";

  public HostSpec {
    scheduler = scheduler == null ? Choice.of(DEFAULT_SCHEDULER) : scheduler;
    locks = locks == null ? LockChoices.defaults() : locks;
    kernel = kernel == null ? KernelSpec.defaults() : kernel;
  }

  /** A host whose kernel has the default wakeup behaviour. */
  public HostSpec(int cpus, Choice scheduler, boolean preemptible, boolean exclusivePinning, LockChoices locks) {
    this(cpus, scheduler, preemptible, exclusivePinning, locks, KernelSpec.defaults());
  }

  public static HostSpec defaults() {
    return new HostSpec(0, Choice.of(DEFAULT_SCHEDULER), false, false, LockChoices.defaults(), KernelSpec.defaults());
  }
}

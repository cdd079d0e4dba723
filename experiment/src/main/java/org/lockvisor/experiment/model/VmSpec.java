package org.lockvisor.experiment.model;

import com.google.common.collect.ImmutableList;
import java.util.List;

/**
 * One VM: vCPUs and their pinning, the guest kernel (scheduler, preemption model, lock choices),
 * its devices and the workloads that run in it.
 *
 * @param name VM name, e.g. {@code vm0}
 * @param vcpus number of vCPUs
 * @param pinning physical CPU of each vCPU thread; empty: the threads float
 * @param scheduler the guest scheduler plugin and its options
 * @param preemptible CONFIG_PREEMPT in the guest kernel
 * @param locks the guest kernel's lock algorithms and vcpu_is_preempted switch
 * @param devices devices in attachment order
 * @param workloads workloads in start order
 * @param kernel the guest kernel's wakeup, IPI and steal-time behaviour
 */
public record VmSpec(
    String name,
    int vcpus,
    List<Integer> pinning,
    Choice scheduler,
    boolean preemptible,
    LockChoices locks,
    List<ComponentSpec> devices,
    List<ComponentSpec> workloads,
    KernelSpec kernel) {

  public VmSpec {
    name = name == null ? "" : name;
    pinning = pinning == null ? ImmutableList.of() : ImmutableList.copyOf(pinning);
    scheduler = scheduler == null ? Choice.of(HostSpec.DEFAULT_SCHEDULER) : scheduler;
    locks = locks == null ? LockChoices.defaults() : locks;
    devices = devices == null ? ImmutableList.of() : ImmutableList.copyOf(devices);
    workloads = workloads == null ? ImmutableList.of() : ImmutableList.copyOf(workloads);
    kernel = kernel == null ? KernelSpec.defaults() : kernel;
  }

  /** A VM whose guest kernel has the default wakeup behaviour. */
  public VmSpec(String name, int vcpus, List<Integer> pinning, Choice scheduler, boolean preemptible,
      LockChoices locks, List<ComponentSpec> devices, List<ComponentSpec> workloads) {
    this(name, vcpus, pinning, scheduler, preemptible, locks, devices, workloads, KernelSpec.defaults());
  }
}

package org.lockvisor.experiment.model;

import com.google.common.collect.ImmutableList;
import java.util.List;

/**
 * Background load that overcommits the host: CPU-bound host threads, and background VMs whose
 * every vCPU runs a CPU-bound guest task.
 *
 * @param hostThreads CPU-bound host threads, pinned round-robin over the physical CPUs
 * @param vms background VMs
 */
public record BackgroundSpec(int hostThreads, List<BackgroundVm> vms) {
  public BackgroundSpec {
    vms = vms == null ? ImmutableList.of() : ImmutableList.copyOf(vms);
  }

  public static BackgroundSpec none() {
    return new BackgroundSpec(0, List.of());
  }

  /** A background VM: a name, vCPUs and their pinning (empty: floating). */
  public record BackgroundVm(String name, int vcpus, List<Integer> pinning) {
    public BackgroundVm {
      name = name == null ? "" : name;
      pinning = pinning == null ? ImmutableList.of() : ImmutableList.copyOf(pinning);
    }
  }
}

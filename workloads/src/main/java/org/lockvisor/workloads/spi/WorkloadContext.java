package org.lockvisor.workloads.spi;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.collect.ImmutableList;
import java.util.List;
import org.lockvisor.devices.spi.CostSource;
import org.lockvisor.devices.spi.Device;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Vm;

/**
 * What a workload gets when it starts: the machine, its VM, the VM's attached devices in
 * configuration order, the cost table (guest kernel path costs from the arch profile) and the
 * lock plugins (for workloads that take locks themselves, such as locktorture).
 */
public record WorkloadContext(Machine machine, Vm vm, List<Device> devices, CostSource costs, WorkloadLocks locks) {
  public WorkloadContext {
    checkArgument(machine != null, "machine must be set");
    checkArgument(vm != null, "vm must be set");
    checkArgument(costs != null, "costs must be set");
    checkArgument(locks != null, "locks must be set");
    devices = ImmutableList.copyOf(devices);
  }

  /** A context without lock plugins ({@link WorkloadLocks#NONE}). */
  public WorkloadContext(Machine machine, Vm vm, List<Device> devices, CostSource costs) {
    this(machine, vm, devices, costs, WorkloadLocks.NONE);
  }

  /**
   * The device called {@code name} of type {@code type}; with an empty name, the only device of
   * that type. Errors list the candidates.
   */
  public <T extends Device> T device(String name, Class<T> type) {
    List<T> candidates = devices.stream().filter(type::isInstance).map(type::cast).toList();
    if (name == null || name.isEmpty()) {
      checkArgument(candidates.size() == 1, "VM %s needs exactly one %s device to choose from; found %s",
          vm.name(), type.getSimpleName(), candidates.stream().map(Device::name).toList());
      return candidates.get(0);
    }
    return candidates.stream().filter(d -> d.name().equals(name)).findFirst().orElseThrow(
        () -> new IllegalArgumentException("unknown " + type.getSimpleName() + " [" + name + "] in VM " + vm.name()
            + "; known: " + candidates.stream().map(Device::name).toList()));
  }
}

package org.lockvisor.workloads.spi;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.collect.ImmutableList;
import java.util.List;
import org.lockvisor.devices.spi.CostSource;
import org.lockvisor.devices.spi.Device;
import org.lockvisor.devices.spi.LockProvider;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Vm;

/**
 * What a workload gets when it starts: the machine, its VM, the VM's attached devices in
 * configuration order, the cost table (guest kernel path costs from the arch profile), and the
 * kernel locks the experiment chose for the workload's own kernel paths (pipes, fork, exit).
 *
 * @param locks creates the guest kernel's locks with the chosen algorithms; workloads that take
 *     no kernel lock of their own may get {@link #NO_LOCKS}
 */
public record WorkloadContext(Machine machine, Vm vm, List<Device> devices, CostSource costs, LockProvider locks) {

  /** For workloads whose kernel paths take no lock of their own. */
  public static final LockProvider NO_LOCKS = (kernel, name, kind) -> {
    throw new IllegalStateException("this workload context provides no locks (asked for [" + name + "], " + kind + ")");
  };

  /** A context without a lock provider. */
  public WorkloadContext(Machine machine, Vm vm, List<Device> devices, CostSource costs) {
    this(machine, vm, devices, costs, NO_LOCKS);
  }

  public WorkloadContext {
    checkArgument(locks != null, "locks must be set (use NO_LOCKS)");
    checkArgument(machine != null, "machine must be set");
    checkArgument(vm != null, "vm must be set");
    checkArgument(costs != null, "costs must be set");
    devices = ImmutableList.copyOf(devices);
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

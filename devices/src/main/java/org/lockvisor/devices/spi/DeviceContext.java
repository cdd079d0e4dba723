package org.lockvisor.devices.spi;

import static com.google.common.base.Preconditions.checkArgument;

import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Vm;

/**
 * What a device gets when it is attached: the machine, the VM it belongs to, a way to create
 * kernel locks of the algorithms the experiment chose for each kernel, and the cost table.
 *
 * @param machine the simulated machine
 * @param vm the VM the device is plugged into
 * @param locks creates guest and host kernel locks (the experiment's choice of algorithm)
 * @param costs cost constants from the arch profile
 */
public record DeviceContext(Machine machine, Vm vm, LockProvider locks, CostSource costs) {
  public DeviceContext {
    checkArgument(machine != null, "machine must be set");
    checkArgument(vm != null, "vm must be set");
    checkArgument(locks != null, "locks must be set");
    checkArgument(costs != null, "costs must be set");
  }
}

package org.lockvisor.devices.spi;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;

import org.lockvisor.arch.spi.ArchCosts;
import org.lockvisor.core.plugin.BoundOptions;
import org.lockvisor.core.plugin.PluginContext;
import org.lockvisor.locking.spi.KernelLocks;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Vm;

/**
 * Everything a device instance gets from the framework, handed to {@link DeviceFactory#create}
 * and again to {@link Device#attach}: its name, its options bound by the framework, the arch
 * profile's costs ({@link ArchCosts}: a device derives its path costs from cost keys, never from
 * experiment options), the kernel locks of the experiment's choice ({@link KernelLocks}), and,
 * once the machine is built, the VM it is plugged into. New services arrive as new methods here,
 * so no plugin breaks. An interface: a device's unit test may hand its factory a mock.
 */
public interface DeviceContext extends PluginContext {

  /** The arch profile's costs. */
  ArchCosts costs();

  /** Creates guest and host kernel locks of the algorithm the experiment chose for each kernel and kind. */
  KernelLocks locks();

  /**
   * The VM the device is plugged into.
   *
   * @throws IllegalStateException before the machine is built (while the factory creates the
   *     device to check its options, e.g. in {@code lockvisor validate}): read it in {@link
   *     Device#attach}, never in the factory
   */
  Vm vm();

  /** The simulated machine ({@link #vm()}'s). */
  default Machine machine() {
    return vm().guest().machine();
  }

  /**
   * A context of the framework's making: {@code options} already bound against the factory's
   * declarations ({@link org.lockvisor.core.plugin.OptionBinder#bind}); {@code vm} null while
   * there is no machine.
   */
  static DeviceContext of(String name, BoundOptions options, ArchCosts costs, KernelLocks locks, Vm vm) {
    checkArgument(name != null && !name.isBlank(), "a device needs a name");
    checkArgument(options != null, "options of device [%s] must be bound", name);
    checkArgument(costs != null, "device [%s] needs costs", name);
    checkArgument(locks != null, "device [%s] needs locks", name);
    record Simple(String name, BoundOptions options, ArchCosts costs, KernelLocks locks, Vm vmOrNull)
        implements DeviceContext {
      @Override
      public Vm vm() {
        checkState(vmOrNull != null, "device [%s] asked for its VM before the machine was built;"
            + " read the VM in attach, not in the factory", name);
        return vmOrNull;
      }
    }
    return new Simple(name, options, costs, locks, vm);
  }
}

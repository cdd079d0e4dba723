package org.lockvisor.workloads.spi;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.lockvisor.arch.spi.ArchCosts;
import org.lockvisor.core.plugin.BoundOptions;
import org.lockvisor.core.plugin.PluginContext;
import org.lockvisor.locking.spi.KernelLocks;
import org.lockvisor.machine.Machine;
import org.lockvisor.machine.Vm;

/**
 * Everything a workload instance gets from the framework, handed to {@link WorkloadFactory#create}
 * and again to {@link Workload#start}: its name, its options bound by the framework, the arch
 * profile's costs ({@link ArchCosts}: guest kernel path costs), the kernel locks for workloads
 * that take locks themselves ({@link KernelLocks}, locktorture), and, once the machine is built,
 * its VM and the VM's devices. New services arrive as new methods here, so no plugin breaks. An
 * interface: a workload's unit test may hand its factory a mock.
 *
 * <p>The workload SPI names no device type: a workload asks for the device class it drives
 * ({@code device("vdb", BlockDevice.class)}), so the SPI depends on the devices module not at all.
 */
public interface WorkloadContext extends PluginContext {

  /** The arch profile's costs. */
  ArchCosts costs();

  /** Kernel locks of the experiment's choice, or by plugin name ({@link KernelLocks#NONE} where none are offered). */
  KernelLocks locks();

  /**
   * The VM the workload runs in.
   *
   * @throws IllegalStateException before the machine is built (while the factory creates the
   *     workload to check its options): read it in {@link Workload#start}, never in the factory
   */
  Vm vm();

  /** The simulated machine ({@link #vm()}'s). */
  default Machine machine() {
    return vm().guest().machine();
  }

  /**
   * The VM's device called {@code name} that is a {@code type} (e.g. {@code BlockDevice.class});
   * with an empty name, the only device of that type. Errors list the candidates.
   *
   * @throws IllegalStateException before the machine is built
   */
  <T> T device(String name, Class<T> type);

  /**
   * A context of the framework's making: {@code options} already bound against the factory's
   * declarations ({@link org.lockvisor.core.plugin.OptionBinder#bind}); {@code vm} null while there
   * is no machine; {@code devices} the VM's devices by name, in configuration order.
   */
  static WorkloadContext of(String name, BoundOptions options, ArchCosts costs, KernelLocks locks, Vm vm,
      Map<String, ?> devices) {
    checkArgument(name != null && !name.isBlank(), "a workload needs a name");
    checkArgument(options != null, "options of workload [%s] must be bound", name);
    checkArgument(costs != null, "workload [%s] needs costs", name);
    checkArgument(locks != null, "workload [%s] needs locks (KernelLocks.NONE for none)", name);
    Map<String, Object> byName = new LinkedHashMap<>(devices == null ? Map.of() : devices);
    record Simple(String name, BoundOptions options, ArchCosts costs, KernelLocks locks, Vm vmOrNull,
        Map<String, Object> devices) implements WorkloadContext {
      @Override
      public Vm vm() {
        checkState(vmOrNull != null, "workload [%s] asked for its VM before the machine was built;"
            + " read the VM in start, not in the factory", name);
        return vmOrNull;
      }

      @Override
      public <T> T device(String deviceName, Class<T> type) {
        Vm v = vm();
        List<String> candidates = new ArrayList<>();
        List<T> matches = new ArrayList<>();
        for (Map.Entry<String, Object> e : devices.entrySet()) {
          if (type.isInstance(e.getValue())) {
            candidates.add(e.getKey());
            if (deviceName == null || deviceName.isEmpty() || e.getKey().equals(deviceName)) {
              matches.add(type.cast(e.getValue()));
            }
          }
        }
        if (deviceName == null || deviceName.isEmpty()) {
          checkArgument(matches.size() == 1, "VM %s needs exactly one %s device to choose from; found %s",
              v.name(), type.getSimpleName(), candidates);
          return matches.get(0);
        }
        if (matches.isEmpty()) {
          throw new IllegalArgumentException("unknown " + type.getSimpleName() + " [" + deviceName + "] in VM "
              + v.name() + "; known: " + candidates);
        }
        return matches.get(0);
      }
    }
    return new Simple(name, options, costs, locks, vm, byName);
  }
}

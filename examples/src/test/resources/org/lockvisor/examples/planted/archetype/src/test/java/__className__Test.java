package ${package};

import org.lockvisor.locking.builtin.TicketSpinLockFactory;
import org.lockvisor.locking.testkit.LockTestbed;
import org.lockvisor.machine.config.HypervisorConfig;

/** Planted for PluginApiTest: a template test that assembles a VM by hand (kits and built-ins are allowed). */
class ${className}Test {
  HypervisorConfig hypervisor = new HypervisorConfig(700, 500, 0);
}

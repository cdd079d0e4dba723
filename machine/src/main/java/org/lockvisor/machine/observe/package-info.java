/**
 * Observing a running machine: per-event tracing ({@link
 * org.lockvisor.machine.observe.MachineTrace}), invariant mode ({@link
 * org.lockvisor.machine.observe.MachineInvariants}, which runs the interpreter's own checks and a
 * caller's extra ones after every event, failing with {@link
 * org.lockvisor.machine.observe.InvariantViolation}) and the hypervisor's directed-yield counters
 * ({@link org.lockvisor.machine.observe.YieldStats}). Outputs, the test kits and hand-assembled
 * machines use them; a plugin never imports this package.
 */
package org.lockvisor.machine.observe;

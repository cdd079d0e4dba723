/**
 * Invariant mode: {@link org.lockvisor.machine.observe.MachineInvariants} runs the interpreter's
 * own checks ({@code Machine.interpreterViolation}) and a caller's extra ones after every event,
 * failing with {@link org.lockvisor.machine.observe.InvariantViolation}. The test kits,
 * {@code --check-invariants} and hand-assembled machines use it; a plugin never imports this
 * package (a plugin's own invariants are registered by its tests, see docs/correctness.md).
 */
package org.lockvisor.machine.observe;

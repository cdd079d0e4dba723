/**
 * The settings a machine is built with: the guest and host kernels' ({@link
 * org.lockvisor.machine.config.KernelConfig}, {@link org.lockvisor.machine.config.TtwuQueueMode}),
 * the hypervisor's ({@link org.lockvisor.machine.config.HypervisorConfig}, {@link
 * org.lockvisor.machine.config.SpinTrapConfig}, {@link org.lockvisor.machine.config.DirectedYield})
 * and the host's own activity ({@link org.lockvisor.machine.config.HostActivity}). Plain values:
 * this package depends on nothing in the machine. The composition root sets them from an
 * experiment and its arch profile; hand-assembled machines and the test kits set them directly. A
 * plugin never imports this package: what it may configure reaches it as options and costs
 * through its kind's context, and what it runs on through the plugin API of {@code
 * org.lockvisor.machine}.
 */
package org.lockvisor.machine.config;

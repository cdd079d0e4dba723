/**
 * The machine: physical CPUs running host tasks, vCPU threads whose guest mode is a guest CPU,
 * guest tasks, programs of ops and their interpreter, interrupts, IPIs, VM exits, halt and kick.
 * It depends only on {@code core}, the arch profiles' SPI, the JDK and Guava.
 *
 * <h2>The plugin API</h2>
 *
 * <p>This package is the only machine code a lock, device, workload or scheduler plugin imports,
 * and these are its public types (held by {@code PluginApiTest} in {@code examples} for the example
 * plugins, the archetypes' classes made from them and every name the archetypes' templates
 * mention; that test also keeps its list and this one the same):
 *
 * <ul>
 *   <li>code paths: {@link org.lockvisor.machine.Program} (built once, run by many tasks), {@link
 *       org.lockvisor.machine.Op} (the op protocol: phases, {@link org.lockvisor.machine.Op#AGAIN}
 *       and {@link org.lockvisor.machine.Op#NEXT}) and the stock ops of {@link
 *       org.lockvisor.machine.Ops};
 *   <li>the running task: {@link org.lockvisor.machine.Task} (what an op may start: work, a spin,
 *       a sleep, a call; pokes; preemption and interrupt state), {@link
 *       org.lockvisor.machine.TaskState}, {@link org.lockvisor.machine.TaskAttachment} (a plugin's
 *       per-task state), {@link org.lockvisor.machine.SpinCondition} and {@link
 *       org.lockvisor.machine.SpinWatch} (when a spin ends), {@link
 *       org.lockvisor.machine.WaitQueue} (when a sleep ends);
 *   <li>where it runs: {@link org.lockvisor.machine.Kernel}, {@link org.lockvisor.machine.Cpu},
 *       {@link org.lockvisor.machine.Vm}, {@link org.lockvisor.machine.VcpuTask} and {@link
 *       org.lockvisor.machine.Machine} (the simulation clock, symbols, host threads), {@link
 *       org.lockvisor.machine.SharedLine} (a cache line priced by where it was), {@link
 *       org.lockvisor.machine.VcpuPreemptedReads} (what a spin's {@code vcpu_is_preempted} reads
 *       cost the kernel, and how many it made), {@link org.lockvisor.machine.VcpuPreemptedHook}
 *       (what the architecture's {@code vcpu_is_preempted} answers), {@link
 *       org.lockvisor.machine.CacheLines} (the machine's pricing of its shared lines);
 *   <li>what a run shows: {@link org.lockvisor.machine.MachineTrace} (what the interpreter tells
 *       a trace: switches, exits, IPIs, spins) and {@link org.lockvisor.machine.YieldStats} (a
 *       VM's pause-loop exits, directed yields and kicks);
 *   <li>for scheduler plugins: {@link org.lockvisor.machine.Scheduler}, {@link
 *       org.lockvisor.machine.SchedStats}, {@link org.lockvisor.machine.MigrationCause}, {@link
 *       org.lockvisor.machine.CpuTopology}.
 * </ul>
 *
 * <p>Spin versus work: {@link org.lockvisor.machine.Task#startWork work} is CPU time that reads
 * nothing (pokes do not end it, PLE does not see it); a {@link
 * org.lockvisor.machine.Task#startSpin spin} is CPU time that ends on its condition, evaluated at
 * its start, on a poke, on a change of what it watches and on resume, or on its budget (0: none),
 * and in a guest it is what a pause-loop exit counts. Pokes reach spins only: see {@link
 * org.lockvisor.machine.Task#poke}. Sleepers wait on a {@link org.lockvisor.machine.WaitQueue}
 * (or a plugin's own list) and are woken with {@link org.lockvisor.machine.Ops#wake}.
 *
 * <p>Nothing else in this package is public: the interpreter's own types ({@code Activity},
 * {@code Ttwu}, {@code TaskWatchers}, {@code IrqSavedContext}, {@code HostBackground}, {@code
 * InterpreterInvariants}) and its members of the API types — a program's op array ({@code
 * Program.op}, {@code ops}, {@code length}: a plugin builds programs and never steps one), the
 * CPU's run state ({@code Cpu.canRun}, {@code powered}, {@code hasPendingInterrupts}), the
 * wakeup path's {@code Kernel.activate} and reschedule IPI handler (a plugin wakes with {@link
 * org.lockvisor.machine.Ops#wake}), the fields the interpreter steps. The types that build a
 * machine's kernels and hypervisor are set with live in {@code org.lockvisor.machine.config} and
 * invariant mode in {@code org.lockvisor.machine.observe}: the composition root, the test kits
 * and hand-assembled machines use them; a plugin does not (its options and costs reach it through
 * its kind's context).
 */
package org.lockvisor.machine;

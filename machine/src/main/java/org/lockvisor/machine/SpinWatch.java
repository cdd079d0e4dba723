package org.lockvisor.machine;

/**
 * What a spinning task watches, besides being poked: a state change of it re-evaluates the spin
 * condition at once. A closed set: a {@link Cpu} (the holder's CPU: its current task and, for a
 * guest CPU, its vCPU being preempted or resumed — what {@code vcpu_is_preempted} reads) or a
 * {@link Task} (its {@code on_cpu}, e.g. try_to_wake_up's {@code smp_cond_load_acquire} on
 * {@code p->on_cpu}). {@code null} means the spin watches nothing.
 */
public sealed interface SpinWatch permits Cpu, Task {}

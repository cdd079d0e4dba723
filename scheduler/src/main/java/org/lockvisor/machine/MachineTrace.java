package org.lockvisor.machine;

/** Machine-level events for tracing, statistics and invariant checks; all default to nothing. */
public interface MachineTrace {

  MachineTrace NONE = new MachineTrace() {};

  default void onSwitch(Cpu cpu, Task prev, Task next) {}

  default void onWake(Task task, Cpu target) {}

  default void onExit(VcpuTask vcpu, String reason, long start, long durationNs) {}
}

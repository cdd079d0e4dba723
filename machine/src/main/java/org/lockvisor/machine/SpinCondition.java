package org.lockvisor.machine;

/**
 * The exit test of a spin loop, evaluated when the spin starts, whenever the spinner is poked
 * (lock hand-off, need_resched, a watched vCPU changing state) and when its CPU resumes after a
 * freeze. Never polled in small steps.
 */
@FunctionalInterface
public interface SpinCondition {
  /** True when the spinner should stop spinning. */
  boolean done(Task spinner);
}

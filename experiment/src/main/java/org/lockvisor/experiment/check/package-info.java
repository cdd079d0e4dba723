/**
 * Trustworthy runs: invariant mode (mutual exclusion per lock, machine consistency, monotonic
 * time, accounting), deadlock and lost-wakeup detection, runaway guards, and the perturbations
 * of schedule exploration. See docs/correctness.md.
 */
package org.lockvisor.experiment.check;

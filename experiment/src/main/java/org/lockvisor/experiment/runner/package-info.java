/**
 * Runs an {@link org.lockvisor.experiment.model.Experiment}: builds the machine from the model
 * with the plugins it names, runs warm-up and measurement, and collects an {@link
 * org.lockvisor.experiment.runner.ExperimentResult} (workload figures, lock_stat, per-thread CPU,
 * event count, fingerprint, simulated and wall time).
 */
package org.lockvisor.experiment.runner;

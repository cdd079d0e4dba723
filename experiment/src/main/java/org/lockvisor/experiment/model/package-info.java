/**
 * The experiment model: one immutable description of an experiment ({@link
 * org.lockvisor.experiment.model.Experiment}) with two front doors, a fluent Java builder and
 * YAML ({@link org.lockvisor.experiment.model.ExperimentYaml}), checked by one strict validator
 * ({@link org.lockvisor.experiment.model.ExperimentValidator}) that reports every problem with its
 * path. Free of Guice: the plugins arrive as {@link org.lockvisor.experiment.model.ExperimentPlugins}.
 */
package org.lockvisor.experiment.model;

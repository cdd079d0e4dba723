/**
 * The composition root's model: experiments, reproductions and their results. Plain Java; Guice
 * lives only in {@code org.lockvisor.experiment.inject}.
 */
package org.lockvisor.experiment;

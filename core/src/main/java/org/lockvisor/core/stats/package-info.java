/** Counters, time-weighted averages and latency histograms. */
package org.lockvisor.core.stats;

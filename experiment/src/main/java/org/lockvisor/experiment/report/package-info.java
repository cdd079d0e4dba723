/**
 * Reports shaped like the tools kernel engineers read, computed from the machine's exact CPU-time
 * accounting: {@link org.lockvisor.experiment.report.PerfReport} ({@code perf report}).
 */
package org.lockvisor.experiment.report;

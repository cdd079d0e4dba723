/**
 * Reports shaped like the tools kernel engineers read, computed from the machine's exact CPU-time
 * accounting: {@link org.lockvisor.reports.PerfReport} ({@code perf report}), folded
 * stacks, lock_stat, Chrome traces, and the HTML pages with their pictures, drawn in Java:
 * {@link org.lockvisor.reports.FlameGraph} (flame graphs and differentials) and the lock
 * timeline ({@link org.lockvisor.reports.LockTimeline}).
 */
package org.lockvisor.reports;

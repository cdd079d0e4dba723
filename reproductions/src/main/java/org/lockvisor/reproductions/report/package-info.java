/**
 * A reproduction's outputs: one directory per internal run, written like {@code run --out}
 * ({@link org.lockvisor.reproductions.report.RunDirectories}), and the reproduction's report page
 * ({@link org.lockvisor.reproductions.report.ReproductionPage}), built from the reports module's
 * exporters.
 */
package org.lockvisor.reproductions.report;

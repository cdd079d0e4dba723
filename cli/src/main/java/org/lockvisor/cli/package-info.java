/**
 * The {@code lockvisor} command line (picocli). It builds the injector through {@code
 * org.lockvisor.cli.inject.Bootstrap} and maps failures to exit codes: 2 for input
 * mistakes (one line, no stack trace), 1 for failed simulations.
 */
package org.lockvisor.cli;

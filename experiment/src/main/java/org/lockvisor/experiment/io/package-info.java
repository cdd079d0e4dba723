/** File output shared by the runner, exporters and the CLI: atomic writes. */
package org.lockvisor.experiment.io;

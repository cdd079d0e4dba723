package org.lockvisor.cli;

import java.nio.file.Path;
import org.lockvisor.experiment.UserInputException;
import org.lockvisor.reports.RunOutputs;
import picocli.CommandLine.Option;

/** {@code --trace} and {@code --trace-max-events}, shared by {@code run} and {@code reproduce}. */
final class TraceOptions {

  @Option(names = "--trace", description = "Also write trace.json (Chrome trace events for Perfetto UI) for every"
      + " run (reproduce: under <name>/runs/<run>/); needs --out.")
  private boolean trace;

  @Option(names = "--trace-max-events", paramLabel = "N", defaultValue = "" + RunOutputs.DEFAULT_TRACE_EVENTS,
      description = "Bound of each trace.json: at most N events are kept (default: ${DEFAULT-VALUE}).")
  private int maxEvents;

  /** Whether {@code --trace} was given. */
  boolean requested() {
    return trace;
  }

  /**
   * The trace bound to record with (0: no trace), after checking the options against {@code out}.
   *
   * @throws UserInputException for {@code --trace} without {@code --out} or a bound that is not positive
   */
  int eventsFor(Path out) {
    if (trace && out == null) {
      throw new UserInputException("--trace needs --out DIR (trace.json is written there)");
    }
    if (maxEvents <= 0) {
      throw new UserInputException("--trace-max-events must be a positive number of events: [" + maxEvents + "]");
    }
    if (trace) {
      long heap = Runtime.getRuntime().maxMemory() / 4 * 3;
      long bytes = (long) maxEvents * BYTES_PER_EVENT;
      if (bytes > heap) {
        throw new UserInputException("--trace-max-events [" + maxEvents + "] could hold about " + (bytes >> 20)
            + " MiB of trace per run (" + BYTES_PER_EVENT + " bytes an event, its record and its JSON text), over"
            + " three quarters of the JVM heap (" + (heap >> 20) + " MiB); give a smaller bound or a larger heap"
            + " (JAVA_TOOL_OPTIONS=-Xmx<size>)");
      }
    }
    return trace ? maxEvents : 0;
  }

  /**
   * Heap one recorded trace event may take until its file is written: its record in the
   * recorder's arrays (with their doubling slack) and its line of JSON text, rounded up.
   */
  static final long BYTES_PER_EVENT = 256;
}

package org.lockvisor.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import org.lockvisor.experiment.io.AtomicFiles;
import org.lockvisor.experiment.runner.ResultJson;
import org.lockvisor.studies.envelope.EnvelopeRunner;
import org.lockvisor.studies.sweep.SweepRunner;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code lockvisor merge DIR...}: assembles the point files of sweep shards into one {@code
 * sweep.json}. Every point of the sweep must be given exactly once (exit 2 naming the missing
 * points and shards, or the duplicate); {@code --allow-partial} merges what there is and marks
 * the result {@code "partial": true}, its plots "PARTIAL".
 */
@Command(name = "merge", mixinStandardHelpOptions = true,
    description = "Merges sweep shard directories into one sweep.json (printed, or written with --out).")
public final class MergeCommand implements Callable<Integer> {

  @Spec
  private CommandSpec spec;

  @Parameters(arity = "1..*", paramLabel = "DIR", description = "Sweep output directories (shards).")
  private List<Path> dirs;

  @Option(names = "--out", paramLabel = "DIR", description = "Write sweep.json into DIR.")
  private Path out;

  @Option(names = "--force",
      description = "Write into an existing non-empty --out directory that is not a lockvisor output.")
  private boolean force;

  @Option(names = "--allow-partial",
      description = "Merge an incomplete shard set (points missing) or one that gives points twice; sweep.json"
          + " and the plots are marked partial.")
  private boolean allowPartial;

  @Override
  public Integer call() {
    if (dirs.stream().anyMatch(EnvelopeRunner::isEnvelope)) {
      return mergeEnvelope();
    }
    ObjectNode merged = SweepRunner.merge(dirs, allowPartial);
    String json = ResultJson.write(merged);
    if (out != null) {
      // after the inputs merged: no directory for a bad command
      OutputDirectory.prepare("--out", out, force, spec.commandLine().getErr());
      try {
        AtomicFiles.writeString(out.resolve("sweep.json"), json + System.lineSeparator());
        SweepPlots.write(merged, out.resolve("plots"));
      } catch (IOException e) {
        throw new UncheckedIOException("cannot write [" + out.resolve("sweep.json") + "]", e);
      }
    } else {
      PrintWriter stdout = spec.commandLine().getOut();
      stdout.println(json);
      stdout.flush();
    }
    return Lockvisor.EXIT_OK;
  }

  /**
   * Envelope shards ({@code reproduce --envelope --shard i/N --out DIR}): the same plan in every
   * directory, every run once (or {@code --allow-partial}); writes envelope.json, the plots and
   * report.html into {@code --out}, or prints envelope.json.
   */
  private int mergeEnvelope() {
    for (Path d : dirs) {
      if (!EnvelopeRunner.isEnvelope(d)) {
        throw new org.lockvisor.experiment.UserInputException("[" + d + "] is not an envelope directory (no "
            + EnvelopeRunner.PLAN_FILE + "); merge envelope shards or sweep shards, not both");
      }
    }
    EnvelopeRunner.Merged merged = EnvelopeRunner.read(dirs, allowPartial);
    var summary = EnvelopeRunner.summarise(merged.plan(), merged.runs());
    if (out != null) {
      OutputDirectory.prepare("--out", out, force, spec.commandLine().getErr());
      EnvelopeReport.write(out, merged.plan(), summary, merged.partial());
    } else {
      PrintWriter stdout = spec.commandLine().getOut();
      stdout.println(ResultJson.write(EnvelopeReport.json(merged.plan(), summary, merged.partial())));
      stdout.flush();
    }
    return Lockvisor.EXIT_OK;
  }
}

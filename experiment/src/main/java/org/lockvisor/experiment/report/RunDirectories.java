package org.lockvisor.experiment.report;

import static com.google.common.base.Preconditions.checkArgument;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.lockvisor.experiment.ReproductionRuns;
import org.lockvisor.experiment.WhatIf;
import org.lockvisor.experiment.io.AtomicFiles;
import org.lockvisor.experiment.runner.Provenance;
import org.lockvisor.experiment.runner.ResultJson;

/**
 * Writes each captured internal run of a reproduction into a directory of its own, {@code
 * runs/<label>/} under the reproduction's output directory: {@code result.json} (the run with its
 * provenance manifest), every file of its {@link RunOutputs} without a variant suffix, and {@code
 * report.html}. A run that names a baseline run ({@link RunCapture#baseline}) also gets the
 * differential pair {@code oncpu-diff.folded} and {@code spin-diff.folded} (baseline, then this
 * run), written as soon as both runs are done, whatever order they finish in. Every file is
 * written atomically; runs may finish on several threads.
 *
 * <p>Runs of a what-if ({@code reproduce --set}) carry it: {@code provenance.what_if} in {@code
 * result.json}, the settings in the source line, and the what-if in the config hash, so that two
 * different what-ifs (or a what-if and the reproduction) never share a config hash.
 */
public final class RunDirectories implements ReproductionRuns {

  /** The subdirectory of a reproduction's output directory that holds its runs. */
  public static final String RUNS = "runs";

  private final Path runs;
  private final String version;
  private final String commit;
  private final int traceEvents;
  private final WhatIf whatIf;
  private final Map<String, RunCapture> done = new LinkedHashMap<>();
  private final Map<String, List<String>> written = new LinkedHashMap<>();

  /**
   * @param directory the reproduction's output directory; runs go into its {@value #RUNS}/
   * @param version lockvisor version, for the provenance
   * @param commit git commit of the build, for the provenance
   */
  public RunDirectories(Path directory, String version, String commit) {
    this(directory, version, commit, 0);
  }

  /**
   * @param traceEvents bound of each run's {@code trace.json}; 0 writes none
   */
  public RunDirectories(Path directory, String version, String commit, int traceEvents) {
    this(directory, version, commit, traceEvents, WhatIf.NONE);
  }

  /**
   * @param whatIf the what-if the runs are part of ({@link WhatIf#NONE} for the reproduction itself)
   */
  public RunDirectories(Path directory, String version, String commit, int traceEvents, WhatIf whatIf) {
    checkArgument(traceEvents >= 0, "trace event limit must not be negative: [%s]", traceEvents);
    checkArgument(whatIf != null, "whatIf must not be null; use WhatIf.NONE");
    this.runs = directory.resolve(RUNS);
    this.version = version;
    this.commit = commit;
    this.traceEvents = traceEvents;
    this.whatIf = whatIf;
  }

  @Override
  public int traceEvents() {
    return traceEvents;
  }

  @Override
  public boolean capturing() {
    return true;
  }

  @Override
  public synchronized void done(String label, RunCapture capture) {
    if (capture == null) {
      return;
    }
    checkArgument(!done.containsKey(capture.label()), "run [%s] of [%s] reported twice", capture.label(),
        capture.experiment());
    Path dir = runs.resolve(capture.label());
    List<String> names = new ArrayList<>();
    ObjectNode document = ResultJson.document(source(capture), List.of(capture.result()), provenance(capture));
    if (!whatIf.isEmpty()) {
      ((ObjectNode) document.get("provenance")).set("what_if", ResultJson.MAPPER.valueToTree(whatIf.json()));
    }
    write(dir.resolve("result.json"), ResultJson.write(document) + System.lineSeparator());
    names.add("result.json");
    capture.outputs().files().forEach((name, content) -> {
      write(dir.resolve(name), content);
      names.add(name);
    });
    capture.outputs().releaseTrace(); // the largest file: not kept until every run is done
    done.put(capture.label(), capture);
    written.put(capture.label(), names);
    page(capture);
    RunCapture base = capture.baselineLabel() == null ? null : done.get(capture.baselineLabel());
    if (base != null) {
      diff(base, capture);
    }
    for (RunCapture other : done.values()) {
      if (capture.label().equals(other.baselineLabel())) {
        diff(capture, other);
      }
    }
  }

  /** The runs written so far, for the pictures of the reproduction's page. */
  public synchronized List<ReproductionPage.Run> pictures() {
    List<ReproductionPage.Run> out = new ArrayList<>();
    for (RunCapture c : done.values()) {
      List<String> setup = new ArrayList<>();
      c.configTree().path("parameters").fields().forEachRemaining(e -> setup.add(e.getKey() + "=" + e.getValue().asText()));
      out.add(new ReproductionPage.Run(c.label(), c.variant(), c.baselineLabel(), String.join(", ", setup),
          c.outputs()));
    }
    return out;
  }

  /** The labels of the runs written so far, in the order they finished. */
  public synchronized List<String> labels() {
    return List.copyOf(done.keySet());
  }

  private void diff(RunCapture base, RunCapture run) {
    Path dir = runs.resolve(run.label());
    List<String> names = written.get(run.label());
    for (String kind : List.of("oncpu", "spin")) {
      String name = kind + "-diff.folded";
      write(dir.resolve(name), FoldedStacks.diff(base.outputs().text(kind + ".folded"),
          run.outputs().text(kind + ".folded")));
      if (!names.contains(name)) {
        names.add(name);
      }
    }
    page(run);
  }

  private void page(RunCapture capture) {
    List<String> links = new ArrayList<>(written.get(capture.label()));
    links.add("../../" + ReproductionPage.FILE_NAME);
    write(runs.resolve(capture.label()).resolve(ReproductionPage.FILE_NAME),
        RunPage.titled("lockvisor reproduce " + capture.experiment() + ": run " + capture.label(),
            "From: " + source(capture), provenance(capture),
            List.of(capture.outputs()), links));
  }

  private Provenance provenance(RunCapture capture) {
    return capture.provenance(version, commit, whatIf);
  }

  private String source(RunCapture capture) {
    StringBuilder set = new StringBuilder();
    whatIf.settings().forEach(s -> set.append(" --set ").append(s));
    return "lockvisor reproduce " + capture.experiment() + set + " (run " + capture.label()
        + (capture.baselineLabel() == null ? "" : ", baseline " + capture.baselineLabel()) + ")";
  }

  private static void write(Path target, String content) {
    write(target, content.getBytes(StandardCharsets.UTF_8));
  }

  private static void write(Path target, byte[] content) {
    try {
      AtomicFiles.writeBytes(target, content);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write [" + target + "]", e);
    }
  }
}

package org.lockvisor.reproductions.report;

import static com.google.common.base.Preconditions.checkArgument;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.lockvisor.experiment.io.AtomicFiles;
import org.lockvisor.experiment.runner.Provenance;
import org.lockvisor.experiment.runner.ResultJson;
import org.lockvisor.reports.FoldedStacks;
import org.lockvisor.reports.RunFiles;
import org.lockvisor.reports.RunOutputs;
import org.lockvisor.reports.RunPage;
import org.lockvisor.reproductions.api.ExperimentRun;
import org.lockvisor.reproductions.api.ReproductionRuns;
import org.lockvisor.reproductions.api.WhatIf;

/**
 * Writes each internal run of a reproduction ({@link ExperimentRun}, a run of its shipped
 * experiment) into a directory of its own, {@code runs/<label>/} under the reproduction's output
 * directory, with {@link RunFiles}, the writer of {@code run --out}: {@code result.json} (the run
 * with its provenance manifest), every file of its {@link RunOutputs} without a variant suffix, and
 * {@code report.html}. A run that names a baseline run ({@link ExperimentRun#baselineLabel()}) also
 * gets the differential pair {@code oncpu-diff.folded} and {@code spin-diff.folded} (baseline, then
 * this run), written as soon as both runs are done, whatever order they finish in. Every file is
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
  /** A written run: what its page, its pictures and the differential pairs need. */
  private record Entry(String experiment, String label, String variant, String baselineLabel, String setup,
      String source, Provenance provenance, RunOutputs outputs) {}

  private final Map<String, Entry> done = new LinkedHashMap<>();
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

  /**
   * A run of a shipped experiment: its directory is written by {@link RunFiles}, the writer of
   * {@code run --out}, with the provenance {@code run} gives the same experiment tree (and the
   * what-if, if any).
   */
  @Override
  public synchronized void done(ExperimentRun run) {
    if (run.outputs() == null) {
      return;
    }
    // as run --out hashes it: the tree as run (every path already in it) plus the cost settings,
    // which the tree cannot hold; so the same run has the same config hash through both commands
    ObjectNode tree = run.tree();
    List<String> costs = whatIf.settings().stream().filter(s -> s.startsWith("cost.")).toList();
    if (!costs.isEmpty()) {
      tree = tree.deepCopy();
      tree.set("what-if", ResultJson.MAPPER.valueToTree(costs));
    }
    Provenance provenance = Provenance.of(version, commit, tree, run.experiment(), run.plugins());
    String source = "lockvisor reproduce " + run.reproduction() + whatIfSettings() + " (run " + run.label()
        + (run.baselineLabel() == null ? "" : ", baseline " + run.baselineLabel()) + "): " + run.source();
    ObjectNode document = ResultJson.document(source, List.of(run.result()), provenance);
    if (!whatIf.isEmpty()) {
      ((ObjectNode) document.get("provenance")).set("what_if", ResultJson.MAPPER.valueToTree(whatIf.json()));
    }
    written(new Entry(run.reproduction(), run.label(), run.outputs().variant(), run.baselineLabel(), run.source(), source,
        provenance, run.outputs()), document);
  }

  private void written(Entry entry, ObjectNode document) {
    checkArgument(!done.containsKey(entry.label()), "run [%s] of [%s] reported twice", entry.label(),
        entry.experiment());
    Path dir = runs.resolve(entry.label());
    List<String> names = new ArrayList<>(RunFiles.write(dir, document, List.of(entry.outputs())));
    entry.outputs().releaseTrace(); // the largest file: not kept until every run is done
    done.put(entry.label(), entry);
    written.put(entry.label(), names);
    page(entry);
    Entry base = entry.baselineLabel() == null ? null : done.get(entry.baselineLabel());
    if (base != null) {
      diff(base, entry);
    }
    for (Entry other : done.values()) {
      if (entry.label().equals(other.baselineLabel())) {
        diff(entry, other);
      }
    }
  }

  /** The runs written so far, for the pictures of the reproduction's page. */
  public synchronized List<ReproductionPage.Run> pictures() {
    List<ReproductionPage.Run> out = new ArrayList<>();
    for (Entry c : done.values()) {
      out.add(new ReproductionPage.Run(c.label(), c.variant(), c.baselineLabel(), c.setup(), c.outputs()));
    }
    return out;
  }

  /** The labels of the runs written so far, in the order they finished. */
  public synchronized List<String> labels() {
    return List.copyOf(done.keySet());
  }

  private void diff(Entry base, Entry run) {
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

  private void page(Entry entry) {
    List<String> links = new ArrayList<>(written.get(entry.label()));
    links.add("../../" + ReproductionPage.FILE_NAME);
    write(runs.resolve(entry.label()).resolve(ReproductionPage.FILE_NAME),
        RunPage.titled("lockvisor reproduce " + entry.experiment() + ": run " + entry.label(),
            "From: " + entry.source(), entry.provenance(), List.of(entry.outputs()), links));
  }

  private String whatIfSettings() {
    StringBuilder set = new StringBuilder();
    whatIf.settings().forEach(s -> set.append(" --set ").append(s));
    return set.toString();
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

package org.lockvisor.reports;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.lockvisor.experiment.runner.ExperimentResult;
import org.lockvisor.experiment.runner.LockClassStats;
import org.lockvisor.experiment.runner.Provenance;

/**
 * The {@code report.html} of one {@code lockvisor run}: provenance, the runs (base and variants)
 * with their events and fingerprints, every workload figure side by side per variant with a bar
 * chart of each workload's first figure, then per variant the top of its perf reports, the
 * lock_stat and lock-contention top rows, and links to every file written.
 */
public final class RunPage {

  /**
   * The page's lock timelines stop once the page reaches half of {@link
   * FlameGraphSections#PAGE_BUDGET}, so that the flame graphs keep the other half.
   */
  static final int TIMELINE_BUDGET = FlameGraphSections.PAGE_BUDGET / 2;

  /** Intervals drawn in all the page's lock timelines together (each at most {@link LockTimelineSvg#MAX_ITEMS}). */
  static final int TIMELINE_INTERVALS = 8_000;

  /** Rows shown of each top-N table. */
  static final int TOP = 10;

  private RunPage() {}

  /**
   * @param provenance the provenance manifest, or {@code null}
   * @param runs each run's outputs (the base first)
   * @param links relative paths of the files beside the page
   */
  public static String render(String experiment, String source, Provenance provenance, List<RunOutputs> runs,
      List<String> links) {
    return render(experiment, source, provenance, runs, links, Map.of());
  }

  /**
   * @param variants what each variant runs (its overrides, e.g. {@code vms[0].locks.spinlock=ticket}), by
   *     variant name, for the Runs table's legend
   */
  public static String render(String experiment, String source, Provenance provenance, List<RunOutputs> runs,
      List<String> links, Map<String, String> variants) {
    return titled("lockvisor run " + experiment, "Experiment file: " + source, provenance, runs, links, variants);
  }

  /**
   * The same page with its own title and origin line, e.g. for one internal run of a
   * reproduction ({@code "lockvisor reproduce vhost-wakeup: run ..."}, {@code "From: ..."}).
   */
  public static String titled(String title, String origin, Provenance provenance, List<RunOutputs> runs,
      List<String> links) {
    return titled(title, origin, provenance, runs, links, Map.of());
  }

  private static String titled(String title, String origin, Provenance provenance, List<RunOutputs> runs,
      List<String> links, Map<String, String> variants) {
    HtmlReport page = new HtmlReport(title);
    page.paragraph(origin);
    if (provenance != null) {
      page.table(List.of("provenance", "value"), List.of(
          List.of("lockvisor", provenance.version() + " (git " + provenance.commit() + ")"),
          List.of("config sha256", provenance.configHash()),
          List.of("root seed", Long.toString(provenance.seed())),
          List.of("plugins", String.join(", ", provenance.plugins().stream()
              .map(p -> p.kind() + " " + p.name() + " " + p.version()).toList()))));
    }
    page.heading("Runs");
    List<List<String>> rows = new ArrayList<>();
    List<String> simulated = NumberColumns.format(runs.stream().map(o -> o.result().simulatedNs() / 1e6).toList());
    List<String> events = NumberColumns.format(runs.stream().map(o -> o.result().events()).toList());
    // Wall time is not simulated: always two decimals, whatever the values.
    List<String> wall = runs.stream().map(o -> String.format(Locale.ROOT, "%.2f", o.result().wallNs() / 1e9)).toList();
    for (int i = 0; i < runs.size(); i++) {
      ExperimentResult r = runs.get(i).result();
      rows.add(List.of(r.variant(), variants.getOrDefault(r.variant(), r.variant().equals("base")
              ? "the experiment as written" : "-"), r.arch(), simulated.get(i), events.get(i), r.fingerprint(),
          wall.get(i)));
    }
    page.table(List.of("variant", "runs", "arch", "simulated (ms)", "events", "fingerprint", "wall (s)"), rows);

    ExperimentResult first = runs.get(0).result();
    for (ExperimentResult.WorkloadResult w : first.workloads()) {
      page.heading("Workload " + w.vm() + "/" + w.name() + " (" + w.type() + ")");
      Set<String> keys = new LinkedHashSet<>(w.figures().keySet());
      List<String> header = new ArrayList<>();
      header.add("figure");
      header.add("unit");
      runs.forEach(o -> header.add(o.variant()));
      List<List<String>> figureRows = new ArrayList<>();
      for (String k : keys) {
        List<String> row = new ArrayList<>();
        row.add(k);
        row.add(NumberColumns.unitOf(k));
        // One format for the figure across the variants.
        row.addAll(NumberColumns.format(runs.stream().map(o -> figureOf(o.result(), w, k)).toList()));
        figureRows.add(row);
      }
      page.table(header, figureRows);
      if (!keys.isEmpty() && runs.size() > 1) {
        String k = keys.iterator().next();
        List<String> labels = new ArrayList<>();
        List<Double> values = new ArrayList<>();
        for (RunOutputs o : runs) {
          Number v = figureOf(o.result(), w, k);
          labels.add(o.variant());
          values.add(v == null ? 0 : Math.max(0, v.doubleValue()));
        }
        page.svg(w.name() + ": " + k + " per variant",
            BarChartSvg.render(w.name() + " " + k + unitSuffix(k), labels, values));
      }
    }

    for (RunOutputs o : runs) {
      ExperimentResult r = o.result();
      if (!r.scheduling().isEmpty()) {
        page.heading("Variant " + r.variant() + ": scheduling (migrations by cause, nr_running)");
        page.table(List.of("kernel", "wake", "fork", "periodic", "newidle", "nohz", "active", "nr_running mean",
            "max"), SchedulingReport.levelRows(r.scheduling()));
        Object totals = r.scheduling().get("totals");
        if (totals instanceof Map<?, ?> t) {
          List<List<String>> yieldRows = new ArrayList<>();
          t.forEach((k, v) -> yieldRows.add(List.of(String.valueOf(k), String.valueOf(v))));
          page.table(List.of("directed yield / confer / pv (all VMs)", "count"), yieldRows);
        }
        List<List<String>> hcallRows = SchedulingReport.hcallRows(r.scheduling());
        if (!hcallRows.isEmpty()) {
          page.table(List.of("VM", "hcall", "count", "per second"), hcallRows);
        }
      }
      page.heading("Variant " + r.variant() + ": profile (top " + 15 + " per report)");
      page.preformatted(o.perfTop());
      List<LockClassStats> classes = r.lockStat().classes();
      if (!classes.isEmpty()) {
        page.heading("Variant " + r.variant() + ": lock_stat (top " + TOP + ")");
        List<List<String>> lockRows = new ArrayList<>();
        for (LockClassStats c : classes.subList(0, Math.min(TOP, classes.size()))) {
          lockRows.add(List.of(c.className(), Long.toString(c.contentions()), LockStatReport.time(c.waitTotalNs()),
              LockStatReport.time(c.waitMaxNs()), Long.toString(c.acquisitions()),
              LockStatReport.time(c.holdTotalNs()), LockStatReport.time(c.holderPreemptedWaitNs()),
              Long.toString(c.halts()), Long.toString(c.kicks())));
        }
        page.table(List.of("class", "contentions", "wait total (us)", "wait max (us)", "acquisitions",
            "hold total (us)", "wait while holder preempted (us)", "halts", "kicks"), lockRows);
      }
    }
    page.heading("Lock timelines");
    page.paragraph("The most contended locks of each run on one time axis: holds by holder, the intervals where the"
        + " holder's vCPU was preempted, waits by waiter, and the vCPUs' threads on the host underneath. Pick a window"
        + " width and slide its position when the run is long.");
    List<String> timelinesLeftOut = new ArrayList<>();
    // A page of many variants draws a shorter stretch of each timeline.
    int intervals = Math.max(500, TIMELINE_INTERVALS / runs.size());
    for (RunOutputs o : runs) {
      String timeline = o.timelineHtml(intervals);
      timeline = timeline == null ? "<p>No timeline.</p>\n" : timeline;
      if (page.length() + timeline.length() > TIMELINE_BUDGET) {
        timelinesLeftOut.add(o.variant());
        continue;
      }
      page.section("Variant " + o.variant() + ": lock timeline", o == runs.get(0));
      page.interactiveBlock(timeline);
      page.endSection();
    }
    if (!timelinesLeftOut.isEmpty()) {
      page.paragraph("Lock timelines left out to keep this page within its size budget: " + String.join(", ",
          timelinesLeftOut) + " (trace.json, written with --trace, has every run in full).");
    }
    page.heading("Flame graphs");
    FlameGraphSections graphs = new FlameGraphSections(page, "run", FlameGraphSections.PAGE_BUDGET);
    RunOutputs base = runs.get(0);
    for (RunOutputs o : runs) {
      page.section("Variant " + o.variant() + ": on-CPU, spin and off-CPU flame graphs per kernel"
          + (o == base ? "" : ", differential against " + base.variant()), o == base);
      graphs.run(o.variant(), o, o == base ? null : base, base.variant(), true);
      page.endSection();
    }
    graphs.finish();
    if (!links.isEmpty()) {
      page.heading("Files");
      page.links(links);
    }
    return page.render();
  }

  private static String unitSuffix(String figure) {
    String unit = NumberColumns.unitOf(figure);
    return unit.isEmpty() ? "" : " (" + unit + ")";
  }

  private static Number figureOf(ExperimentResult r, ExperimentResult.WorkloadResult like, String key) {
    for (ExperimentResult.WorkloadResult w : r.workloads()) {
      if (w.vm().equals(like.vm()) && w.name().equals(like.name())) {
        Map<String, Number> f = w.figures();
        return f.get(key);
      }
    }
    return null;
  }
}

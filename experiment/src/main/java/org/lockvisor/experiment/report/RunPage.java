package org.lockvisor.experiment.report;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.lockvisor.experiment.model.Durations;
import org.lockvisor.experiment.runner.ExperimentResult;
import org.lockvisor.experiment.runner.Provenance;

/**
 * The {@code report.html} of one {@code lockvisor run}: provenance, the runs (base and variants)
 * with their events and fingerprints, every workload figure side by side per variant with a bar
 * chart of each workload's first figure, then per variant the top of its perf reports, the
 * lock_stat and lock-contention top rows, and links to every file written.
 */
public final class RunPage {

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
    return titled("lockvisor run " + experiment, "Experiment file: " + source, provenance, runs, links);
  }

  /**
   * The same page with its own title and origin line, e.g. for one internal run of a
   * reproduction ({@code "lockvisor reproduce vhost-wakeup: run ..."}, {@code "From: ..."}).
   */
  public static String titled(String title, String origin, Provenance provenance, List<RunOutputs> runs,
      List<String> links) {
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
    for (RunOutputs o : runs) {
      ExperimentResult r = o.result();
      rows.add(List.of(r.variant(), r.arch(), Durations.format(r.simulatedNs()), Long.toString(r.events()),
          r.fingerprint(), String.format(Locale.ROOT, "%.2f s", r.wallNs() / 1e9)));
    }
    page.table(List.of("variant", "arch", "simulated", "events", "fingerprint", "wall"), rows);

    ExperimentResult first = runs.get(0).result();
    for (ExperimentResult.WorkloadResult w : first.workloads()) {
      page.heading("Workload " + w.vm() + "/" + w.name() + " (" + w.type() + ")");
      Set<String> keys = new LinkedHashSet<>(w.figures().keySet());
      List<String> header = new ArrayList<>();
      header.add("figure");
      runs.forEach(o -> header.add(o.variant()));
      List<List<String>> figureRows = new ArrayList<>();
      for (String k : keys) {
        List<String> row = new ArrayList<>();
        row.add(k);
        for (RunOutputs o : runs) {
          Number v = figureOf(o.result(), w, k);
          row.add(v == null ? "-" : BarChartSvg.format(v.doubleValue()));
        }
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
            BarChartSvg.render(w.name() + " " + k, labels, values));
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
      }
      page.heading("Variant " + r.variant() + ": profile (top " + 15 + " per report)");
      page.preformatted(o.perfTop());
      List<LockStatReport.ClassStats> classes = r.lockStat().classes();
      if (!classes.isEmpty()) {
        page.heading("Variant " + r.variant() + ": lock_stat (top " + TOP + ")");
        List<List<String>> lockRows = new ArrayList<>();
        for (LockStatReport.ClassStats c : classes.subList(0, Math.min(TOP, classes.size()))) {
          lockRows.add(List.of(c.className(), Long.toString(c.contentions()), LockStatReport.time(c.waitTotalNs()),
              LockStatReport.time(c.waitMaxNs()), Long.toString(c.acquisitions()),
              LockStatReport.time(c.holdTotalNs()), LockStatReport.time(c.holderPreemptedWaitNs())));
        }
        page.table(List.of("class", "contentions", "wait total (us)", "wait max (us)", "acquisitions",
            "hold total (us)", "wait while holder preempted (us)"), lockRows);
      }
    }
    if (!links.isEmpty()) {
      page.heading("Files");
      page.links(links);
    }
    return page.render();
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

package org.lockvisor.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.common.collect.ImmutableList;
import com.google.common.html.HtmlEscapers;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;
import org.lockvisor.experiment.io.AtomicFiles;
import org.lockvisor.experiment.runner.ResultJson;
import org.lockvisor.reproductions.support.Plot;
import org.lockvisor.studies.envelope.Band;
import org.lockvisor.studies.envelope.Dimension;
import org.lockvisor.studies.envelope.EnvelopeRunner;
import org.lockvisor.studies.envelope.EnvelopeSummary;
import org.lockvisor.studies.envelope.Spread;

/**
 * The outputs of a setup envelope: the text summary, {@code envelope.json}, the scatter plots of
 * the effect against the most influential parameters ({@code plots/effect-vs-<parameter>.png} and
 * {@code .svg}, XChart) and {@code report.html} with its section. Everything here is derived from
 * the {@link EnvelopeSummary}, so a merged set of shards writes the same files as one run.
 */
final class EnvelopeReport {

  /** Scatter plots of the effect against this many parameters (the largest |PRCC| first). */
  static final int PLOTTED = 3;
  static final String JSON = "envelope.json";
  static final String HTML = "report.html";

  private EnvelopeReport() {}

  /** {@code {envelope: {plan}, <summary>}}; no wall-clock figure, so shards merge to the same document. */
  static ObjectNode json(EnvelopeRunner.Plan plan, EnvelopeSummary s, boolean partial) {
    ObjectNode n = ResultJson.MAPPER.createObjectNode();
    n.put("kind", "envelope");
    n.set("plan", plan.json().put("hash", plan.hash()));
    if (partial) {
      n.put("partial", true);
    }
    ObjectNode summary = ResultJson.MAPPER.valueToTree(s.json());
    n.setAll(summary);
    return n;
  }

  /** The text summary, one line per element. */
  static List<String> text(EnvelopeRunner.Plan plan, EnvelopeSummary s) {
    List<String> out = new ArrayList<>();
    out.add(String.format(Locale.ROOT, "envelope of %s%s: %d Latin hypercube samples x %d seeds %s (common random"
            + " numbers), hypercube seed %d", plan.subject(), plan.quick() ? " --quick" : "", plan.samples(),
        plan.seeds().size(), plan.seeds(), plan.seed()));
    if (!plan.fixed().isEmpty()) {
      out.add("fixed in every run (--set): " + String.join(", ", plan.fixed()));
    }
    out.add("parameters:");
    for (Dimension d : s.dimensions()) {
      out.add("  " + d.name() + " " + range(d) + "  (" + d.source() + ")");
    }
    out.add("");
    out.add("published figures against the simulated spread over the samples (each sample: the mean over the seeds):");
    out.add(String.format(Locale.ROOT, "  %-34s %-9s %10s %21s %10s %10s %10s %10s %10s  %-7s %s", "quantity", "column",
        "published", "band", "min", "q1", "median", "q3", "max", "inside", "samples in band"));
    for (EnvelopeSummary.Quantity q : s.quantities()) {
      Band b = q.band();
      Spread sp = q.spread().orElse(null);
      out.add(String.format(Locale.ROOT, "  %-34s %-9s %10s %21s %10s %10s %10s %10s %10s  %-7s %d/%d", b.key(),
          b.column() + (b.baselineOnly() ? "*" : ""), b.hasPublished() ? num(b.published()) : "-",
          "[" + num(b.low()) + ", " + num(b.high()) + "]", sp == null ? "-" : num(sp.min()),
          sp == null ? "-" : num(sp.q1()), sp == null ? "-" : num(sp.median()), sp == null ? "-" : num(sp.q3()),
          sp == null ? "-" : num(sp.max()), b.hasPublished() ? (q.publishedInside() ? "yes" : "NO") : "n/a",
          q.samplesMeeting(), s.samples().size()));
    }
    out.add("  (* baseline-only figure: a calibration target; inside: the published value lies in [min, max])");
    out.add("");
    ImmutableList<Integer> region = s.consistent();
    if (!region.isEmpty()) {
      out.add("consistent region: " + region.size() + " of " + s.samples().size()
          + " samples meet every band at once:");
      for (int i : region.subList(0, Math.min(10, region.size()))) {
        out.add("  sample " + i + ": " + s.samples().get(i).values());
      }
      if (region.size() > 10) {
        out.add("  ... and " + (region.size() - 10) + " more (envelope.json)");
      }
    } else {
      out.add("consistent region: none of the " + s.samples().size() + " samples meets every band at once.");
      OptionalInt c = s.closest();
      if (c.isPresent()) {
        int i = c.getAsInt();
        out.add(String.format(Locale.ROOT, "  closest: sample %d, distance %.3f (sum over the bands of the miss / the"
            + " band's width): %s", i, s.distance(i), s.samples().get(i).values()));
        for (Band b : s.bands()) {
          double v = s.values().get(i).getOrDefault(b.key(), Double.NaN);
          if (!b.contains(v)) {
            out.add(String.format(Locale.ROOT, "    misses %s: %s outside [%s, %s]", b.key(), num(v), num(b.low()),
                num(b.high())));
          }
        }
      }
    }
    out.add("");
    List<Double> prcc = s.prcc(s.column(s.effect()));
    out.add("influence on the effect [" + s.effect() + "] (partial rank correlation, PRCC; |PRCC| near 1: strong"
        + " monotone influence with the others held):");
    for (int j : s.mostInfluential(s.dimensions().size())) {
      out.add(String.format(Locale.ROOT, "  %-44s %s", s.dimensions().get(j).name(), num(prcc.get(j))));
    }
    if (s.samples().size() <= s.dimensions().size() + 1) {
      out.add("  (PRCC needs more samples than parameters + 1: give --samples > " + (s.dimensions().size() + 1) + ")");
    }
    return out;
  }

  /** Writes envelope.json, the plots and report.html into {@code dir}. */
  static void write(Path dir, EnvelopeRunner.Plan plan, EnvelopeSummary s, boolean partial) {
    try {
      AtomicFiles.writeString(dir.resolve(JSON), ResultJson.write(json(plan, s, partial)) + System.lineSeparator());
      List<String> plots = plots(dir.resolve("plots"), s, partial);
      AtomicFiles.writeString(dir.resolve(HTML), html(plan, s, plots, partial));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the envelope into [" + dir + "]", e); // the reason: Lockvisor.ioReason
    }
  }

  /** Scatter plots of the effect against the most influential parameters; returns their base names. */
  static List<String> plots(Path dir, EnvelopeSummary s, boolean partial) throws IOException {
    Band effect = s.bands().stream().filter(b -> b.key().equals(s.effect())).findFirst().orElseThrow();
    double[] y = s.column(s.effect());
    List<String> names = new ArrayList<>();
    for (int j : s.mostInfluential(PLOTTED)) {
      Dimension d = s.dimensions().get(j);
      List<Double> xs = new ArrayList<>();
      List<Double> ys = new ArrayList<>();
      for (int i = 0; i < y.length; i++) {
        if (Double.isFinite(y[i])) {
          xs.add(s.samples().get(i).numbers().get(j));
          ys.add(y[i]);
        }
      }
      if (xs.isEmpty()) {
        continue;
      }
      double[] x = xs.stream().mapToDouble(Double::doubleValue).toArray();
      double lo = java.util.Arrays.stream(x).min().orElse(0);
      double hi = java.util.Arrays.stream(x).max().orElse(1);
      boolean log = d instanceof Dimension.Continuous c ? c.log() : d instanceof Dimension.Whole w && w.log();
      String xLabel = d.name() + (d instanceof Dimension.Choice c ? " (index in " + c.values() + ")" : "");
      Plot p = new Plot((partial ? "PARTIAL " : "") + effect.quantity() + " vs " + d.name() + " (PRCC "
          + num(s.prcc(y).get(j)) + ")", xLabel, effect.quantity()).yAuto();
      if (log && lo > 0) {
        p.logX();
      }
      p.published("samples (mean over seeds)", x, ys.stream().mapToDouble(Double::doubleValue).toArray());
      double[] ends = lo < hi ? new double[] {lo, hi} : new double[] {lo, lo + 1};
      if (effect.hasPublished()) {
        p.line("published " + num(effect.published()), ends, new double[] {effect.published(), effect.published()});
      }
      if (Double.isFinite(effect.low())) {
        p.line("band low " + num(effect.low()), ends, new double[] {effect.low(), effect.low()});
      }
      if (Double.isFinite(effect.high())) {
        p.line("band high " + num(effect.high()), ends, new double[] {effect.high(), effect.high()});
      }
      String base = "effect-vs-" + d.name().replaceAll("[^A-Za-z0-9_.-]", "_");
      p.write(dir, base);
      names.add(base);
    }
    return names;
  }

  static String html(EnvelopeRunner.Plan plan, EnvelopeSummary s, List<String> plots, boolean partial) {
    StringBuilder h = new StringBuilder();
    h.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>envelope: ")
        .append(esc(plan.subject())).append("</title>\n<style>body{font-family:sans-serif;max-width:1100px;margin:1em auto}"
            + "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}"
            + "td:first-child,th:first-child{text-align:left}.no{color:#b00}pre{background:#f6f6f6;padding:6px}"
            + "</style></head><body>\n");
    h.append("<h1>").append(partial ? "PARTIAL " : "").append("Setup envelope: ").append(esc(plan.subject()))
        .append("</h1>\n");
    h.append("<section id=\"envelope\"><h2>Envelope</h2>\n<p>").append(s.samples().size())
        .append(" Latin hypercube samples &times; ").append(s.seeds().size()).append(" seeds ")
        .append(esc(s.seeds().toString())).append(" (common random numbers)").append(plan.quick() ? ", --quick" : "")
        .append(". See docs/envelopes.md for how to read it.</p>\n");
    h.append("<h3>Parameters</h3>\n<table><tr><th>parameter</th><th>range</th><th>source</th></tr>\n");
    for (Dimension d : s.dimensions()) {
      h.append("<tr><td>").append(esc(d.name())).append("</td><td>").append(esc(range(d))).append("</td><td>")
          .append(esc(d.source())).append("</td></tr>\n");
    }
    h.append("</table>\n<h3>Published figures in the simulated spread</h3>\n<table><tr><th>quantity</th><th>column"
        + "</th><th>published</th><th>band</th><th>min</th><th>q1</th><th>median</th><th>q3</th><th>max</th>"
        + "<th>inside</th><th>samples in band</th></tr>\n");
    for (EnvelopeSummary.Quantity q : s.quantities()) {
      Band b = q.band();
      Spread sp = q.spread().orElse(null);
      h.append("<tr><td>").append(esc(b.quantity())).append("</td><td>").append(esc(b.column()))
          .append(b.baselineOnly() ? "*" : "").append("</td><td>").append(b.hasPublished() ? num(b.published()) : "-")
          .append("</td><td>[").append(num(b.low())).append(", ").append(num(b.high())).append("]</td>");
      for (double v : sp == null ? new double[0] : new double[] {sp.min(), sp.q1(), sp.median(), sp.q3(), sp.max()}) {
        h.append("<td>").append(num(v)).append("</td>");
      }
      if (sp == null) {
        h.append("<td colspan=\"5\">no run succeeded</td>");
      }
      h.append("<td").append(b.hasPublished() && !q.publishedInside() ? " class=\"no\">NO" : ">"
          + (b.hasPublished() ? "yes" : "n/a")).append("</td><td>").append(q.samplesMeeting()).append('/')
          .append(s.samples().size()).append("</td></tr>\n");
    }
    h.append("</table>\n<p>* a figure of the baseline alone (a calibration target).</p>\n<h3>Consistent region</h3>\n");
    ImmutableList<Integer> region = s.consistent();
    if (region.isEmpty()) {
      h.append("<p>No sample meets every band at once.");
      OptionalInt c = s.closest();
      c.ifPresent(i -> h.append(" Closest: sample ").append(i).append(", distance ").append(num(s.distance(i)))
          .append(", ").append(esc(s.samples().get(i).values().toString())));
      h.append("</p>\n");
    } else {
      h.append("<p>").append(region.size()).append(" of ").append(s.samples().size())
          .append(" samples meet every band at once:</p>\n<pre>");
      for (int i : region) {
        h.append(i).append(": ").append(esc(s.samples().get(i).values().toString())).append('\n');
      }
      h.append("</pre>\n");
    }
    h.append("<h3>Influence on the effect (").append(esc(s.effect())).append(")</h3>\n<table><tr><th>parameter</th>"
        + "<th>PRCC</th></tr>\n");
    List<Double> prcc = s.prcc(s.column(s.effect()));
    for (int j : s.mostInfluential(s.dimensions().size())) {
      h.append("<tr><td>").append(esc(s.dimensions().get(j).name())).append("</td><td>").append(num(prcc.get(j)))
          .append("</td></tr>\n");
    }
    h.append("</table>\n");
    for (String p : plots) {
      h.append("<p><img src=\"plots/").append(esc(p)).append(".svg\" alt=\"").append(esc(p))
          .append("\" style=\"max-width:100%\"></p>\n");
    }
    h.append("</section>\n</body></html>\n");
    return h.toString();
  }

  static String range(Dimension d) {
    if (d instanceof Dimension.Choice c) {
      return String.join("|", c.values());
    }
    if (d instanceof Dimension.Whole w) {
      return w.low() + ".." + w.high() + (w.log() ? ":log" : "");
    }
    Dimension.Continuous c = (Dimension.Continuous) d;
    return num(c.low()) + ".." + num(c.high()) + (c.log() ? ":log" : "");
  }

  static String num(double v) {
    if (Double.isNaN(v)) {
      return "-";
    }
    if (Double.isInfinite(v)) {
      return v > 0 ? "inf" : "-inf";
    }
    double a = Math.abs(v);
    if (a >= 1000 || v == Math.rint(v)) {
      return String.format(Locale.ROOT, "%.0f", v);
    }
    return a >= 10 ? String.format(Locale.ROOT, "%.1f", v) : String.format(Locale.ROOT, "%.3f", v);
  }

  private static String esc(String s) {
    return HtmlEscapers.htmlEscaper().escape(s);
  }
}

package org.lockvisor.studies.calibrate;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSortedMap;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.lockvisor.reports.HtmlReport;

/**
 * What a calibration found, in the three shapes it is written in: {@code calibration.json} ({@link
 * #json}), the text table ({@link #text}) and a section of {@code report.html} ({@link #html}).
 *
 * @param subject the experiment file or reproduction calibrated
 * @param baseline the variant fitted ({@code base}: the experiment as written, without variant
 *     overrides; a reproduction's baseline column)
 * @param targetOrigin where the target figures came from (a file, or the published baseline column)
 * @param parameters each fitted parameter
 * @param target the target figures fitted to
 * @param fitted the baseline's simulated figures at the fitted point (mean over the seeds)
 * @param objective the mean squared relative error at the fitted point
 * @param evaluations simulations run by the fit
 * @param seeds the seeds every point was run with
 * @param predictions each other variant's predicted figures
 * @param wallSeconds wall time of the whole calibration
 */
public record CalibrationReport(String subject, String baseline, String targetOrigin,
    ImmutableList<Parameter> parameters, ImmutableSortedMap<String, Double> target,
    ImmutableSortedMap<String, Double> fitted, double objective, int evaluations, ImmutableList<Long> seeds,
    ImmutableList<Predicted> predictions, double wallSeconds) {

  /** A fitted parameter, in its own unit. */
  public record Parameter(String name, double low, double high, boolean log, String source, double value,
      double standardError) {}

  /**
   * A published value a prediction is judged against, and its band.
   *
   * @param met whether the predicted mean lies in [low, high]
   */
  public record Judged(double published, double low, double high, boolean met) {}

  /** One predicted figure of one variant, judged where a band exists. */
  public record Predicted(String variant, Predictor.Figure figure, Optional<Judged> judged) {}

  /** File names of the outputs. */
  public static final String JSON_FILE = "calibration.json";

  public static final String TEXT_FILE = "calibration.txt";

  /** The JSON object of {@code calibration.json}, in a stable order. */
  public Map<String, Object> json() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("subject", subject);
    m.put("baseline", baseline);
    m.put("target_origin", targetOrigin);
    List<Object> ps = new ArrayList<>();
    for (Parameter p : parameters) {
      Map<String, Object> o = new LinkedHashMap<>();
      o.put("name", p.name());
      o.put("low", p.low());
      o.put("high", p.high());
      o.put("log", p.log());
      o.put("source", p.source());
      o.put("value", p.value());
      o.put("standard_error", p.standardError());
      ps.add(o);
    }
    m.put("parameters", ps);
    Map<String, Object> figures = new LinkedHashMap<>();
    target.forEach((k, v) -> {
      Map<String, Object> o = new LinkedHashMap<>();
      o.put("target", v);
      o.put("simulated", fitted.get(k));
      figures.put(k, o);
    });
    m.put("baseline_figures", figures);
    m.put("objective", objective);
    m.put("evaluations", evaluations);
    m.put("seeds", seeds);
    List<Object> preds = new ArrayList<>();
    for (Predicted p : predictions) {
      Map<String, Object> o = new LinkedHashMap<>();
      o.put("variant", p.variant());
      o.put("figure", p.figure().name());
      o.put("mean", p.figure().mean());
      o.put("replication_half_width", p.figure().replicationHalfWidth());
      o.put("fit_half_width", p.figure().fitHalfWidth());
      o.put("low", p.figure().low());
      o.put("high", p.figure().high());
      p.judged().ifPresent(j -> {
        o.put("published", Double.isNaN(j.published()) ? null : j.published());
        o.put("band_low", j.low());
        o.put("band_high", j.high());
        o.put("met", j.met());
      });
      preds.add(o);
    }
    m.put("predictions", preds);
    m.put("wall_seconds", Math.round(wallSeconds * 10) / 10.0);
    return m;
  }

  /** The text table. */
  public ImmutableList<String> text() {
    List<String> out = new ArrayList<>();
    out.add("calibration of " + subject + ": baseline [" + baseline + "] fitted to " + targetOrigin);
    out.add(String.format(Locale.ROOT, "  %d simulations, seeds %s, objective (mean squared relative error) %.3g,"
        + " %.1f s wall", evaluations, seeds, objective, wallSeconds));
    if (objective > MISFIT) {
      out.add("  " + misfitNote());
    }
    out.add("");
    for (List<String> row : parameterRows(true)) {
      out.add(String.format(Locale.ROOT, "  %-44s %14s %12s  %s", row.get(0), row.get(1), row.get(2), row.get(3)));
    }
    out.add("");
    for (List<String> row : baselineRows(true)) {
      out.add(String.format(Locale.ROOT, "  %-44s %14s %14s %9s", row.get(0), row.get(1), row.get(2), row.get(3)));
    }
    out.add("");
    for (List<String> row : predictionRows(true)) {
      out.add(String.format(Locale.ROOT, "  %-16s %-34s %12s %22s %12s %12s %22s %5s", row.toArray()));
    }
    return ImmutableList.copyOf(out);
  }

  /** Adds the calibration's section to {@code page}. */
  public HtmlReport html(HtmlReport page) {
    page.heading("Calibrate, then predict");
    page.paragraph("Baseline [" + baseline + "] of " + subject + " fitted to " + targetOrigin + "; "
        + evaluations + " simulations, seeds " + seeds + String.format(Locale.ROOT,
        ", objective %.3g, %.1f s wall.", objective, wallSeconds));
    if (objective > MISFIT) {
      page.paragraph(misfitNote());
    }
    page.table(parameterRows(true).get(0), parameterRows(false));
    page.table(baselineRows(true).get(0), baselineRows(false));
    page.table(predictionRows(true).get(0), predictionRows(false));
    if (predictions.stream().anyMatch(p -> p.judged().isPresent())) {
      boolean all = predictions.stream().allMatch(p -> p.judged().map(Judged::met).orElse(true));
      page.verdict(all, all ? "every predicted figure lies in its band" : "a predicted figure misses its band");
    }
    return page;
  }

  /** An objective above this (10 % rms relative error) is a fit that does not reach its target. */
  static final double MISFIT = 0.01;

  private String misfitNote() {
    return String.format(Locale.ROOT, "the fit does not reach the target (rms relative error %.0f %%): the standard"
        + " errors measure the seeds' noise, not this misfit; a parameter at its range's end wants more than its"
        + " declared range allows", 100 * Math.sqrt(objective));
  }

  /** Whether every judged prediction met its band (true when none is judged). */
  public boolean allMet() {
    return predictions.stream().allMatch(p -> p.judged().map(Judged::met).orElse(true));
  }

  /** The parameters' values by name (fitted). */
  public ImmutableMap<String, Double> values() {
    ImmutableMap.Builder<String, Double> b = ImmutableMap.builder();
    parameters.forEach(p -> b.put(p.name(), p.value()));
    return b.buildOrThrow();
  }

  private List<List<String>> parameterRows(boolean withHeader) {
    List<List<String>> rows = new ArrayList<>();
    if (withHeader) {
      rows.add(List.of("parameter", "fitted", "± 1 SE", "range (source)"));
    }
    for (Parameter p : parameters) {
      rows.add(List.of(p.name(), num(p.value()), num(p.standardError()),
          "[" + num(p.low()) + ", " + num(p.high()) + "]" + (p.log() ? " log" : "") + " (" + p.source() + ")"));
    }
    return rows;
  }

  private List<List<String>> baselineRows(boolean withHeader) {
    List<List<String>> rows = new ArrayList<>();
    if (withHeader) {
      rows.add(List.of("baseline figure", "target", "simulated", "error"));
    }
    target.forEach((k, v) -> {
      Double s = fitted.get(k);
      rows.add(List.of(k, num(v), s == null ? "-" : num(s),
          s == null ? "-" : String.format(Locale.ROOT, "%+.1f%%", 100 * (s - v) / v)));
    });
    return rows;
  }

  private List<List<String>> predictionRows(boolean withHeader) {
    List<List<String>> rows = new ArrayList<>();
    if (withHeader) {
      rows.add(List.of("variant", "figure", "predicted", "95% interval", "± replic.", "± fit", "band (published)",
          "met"));
    }
    for (Predicted p : predictions) {
      Predictor.Figure f = p.figure();
      rows.add(List.of(p.variant(), f.name(), num(f.mean()), "[" + num(f.low()) + ", " + num(f.high()) + "]",
          num(f.replicationHalfWidth()), num(f.fitHalfWidth()),
          p.judged().map(j -> "[" + num(j.low()) + ", " + num(j.high()) + "]"
              + (Double.isNaN(j.published()) ? "" : " (" + num(j.published()) + ")"))
              .orElse("-"),
          p.judged().map(j -> j.met() ? "yes" : "NO").orElse("-")));
    }
    return rows;
  }

  /** Four significant figures, plain. */
  static String num(double v) {
    if (!Double.isFinite(v)) {
      return String.valueOf(v);
    }
    if (v == 0) {
      return "0";
    }
    return new java.math.BigDecimal(v).round(new java.math.MathContext(4)).stripTrailingZeros().toPlainString();
  }
}

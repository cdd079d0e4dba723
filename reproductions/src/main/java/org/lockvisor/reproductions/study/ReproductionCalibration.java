package org.lockvisor.reproductions.study;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSortedMap;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.lockvisor.arch.catalog.ArchProfiles;
import org.lockvisor.arch.spi.ArchProfile;
import org.lockvisor.arch.spi.Cost;
import org.lockvisor.arch.spi.CostKey;
import org.lockvisor.core.plugin.DidYouMean;
import org.lockvisor.experiment.UserInputException;
import org.lockvisor.reproductions.api.Reproduction;
import org.lockvisor.reproductions.api.ReproductionOptions;
import org.lockvisor.reproductions.api.ReproductionParameter;
import org.lockvisor.reproductions.api.ReproductionResult;
import org.lockvisor.reproductions.api.WhatIf;
import org.lockvisor.studies.calibrate.CalibrationReport;
import org.lockvisor.studies.calibrate.Calibrator;
import org.lockvisor.studies.calibrate.ParameterRange;
import org.lockvisor.studies.calibrate.Predictor;
import org.lockvisor.studies.envelope.Band;
import org.lockvisor.studies.envelope.Dimension;

/**
 * {@code lockvisor reproduce NAME --calibrate}: fits a reproduction's declared setup parameters
 * (its {@linkplain Reproduction#calibrationParameters() calibration parameters} by default, each
 * within its declared range) to the published <em>baseline</em> column alone, then runs the
 * reproduction at the fitted point and judges the held-out bands (the patched column and what is
 * derived from it) on the prediction.
 *
 * <p>The held-out column can not reach the fit, by construction: the {@link Calibrator} is given
 * a {@link BaselineTarget}, which holds only the published figures of {@linkplain
 * Band#baselineOnly() baseline-only} bands, and a model that returns only the simulated figures of
 * those bands. A published patched figure enters nothing but the final judgement.
 */
public final class ReproductionCalibration {

  /**
   * The published figures of the unpatched system, by band key: the only thing a reproduction's
   * calibration fits to. Built from bands by {@link #of}, which keeps the baseline-only ones.
   */
  public record BaselineTarget(ImmutableSortedMap<String, Double> figures) {
    public BaselineTarget {
      checkArgument(!figures.isEmpty(), "a baseline target needs at least one figure");
    }

    /** The published figures of the baseline-only bands of {@code bands} that have one. */
    public static BaselineTarget of(List<Band> bands) {
      Map<String, Double> m = new TreeMap<>();
      for (Band b : bands) {
        if (b.baselineOnly() && b.hasPublished()) {
          m.put(b.key(), b.published());
        }
      }
      if (m.isEmpty()) {
        throw new UserInputException("the reproduction declares no published baseline figure to calibrate to");
      }
      return new BaselineTarget(ImmutableSortedMap.copyOf(m));
    }
  }

  /** A parameter to fit: the {@code --set} key, its range and whether it is a whole number. */
  record Fitted(Dimension.Continuous dimension, boolean whole) {}

  private final Reproduction reproduction;
  private final ImmutableList<Fitted> parameters;
  private final boolean quick;
  private final ImmutableList<Long> seeds;
  private final String seedParameter;
  private final int jobs;
  private final int maxEvaluations;

  /**
   * @param params the {@code --params} entries (empty: the reproduction's calibration parameters)
   * @param seeds replications per point (1 when the reproduction takes no seed)
   * @throws UserInputException for a parameter the reproduction does not declare with a numeric
   *     range, a cost key without a range or of a profile it does not use, or a range outside the
   *     declared one
   */
  public ReproductionCalibration(Reproduction reproduction, List<ParameterRange> params, boolean quick, int seeds,
      int jobs, int maxEvaluations) {
    this.reproduction = reproduction;
    List<ParameterRange> chosen = new ArrayList<>(params);
    if (chosen.isEmpty()) {
      for (String name : reproduction.calibrationParameters()) {
        chosen.add(new ParameterRange(name, Optional.empty()));
      }
      if (chosen.isEmpty()) {
        throw new UserInputException("reproduction [" + reproduction.name() + "] declares no calibration parameters;"
            + " name them with --params");
      }
    }
    List<Fitted> fitted = new ArrayList<>();
    for (ParameterRange p : chosen) {
      fitted.add(p.name().startsWith("cost.") ? cost(reproduction, p) : parameter(reproduction, p));
    }
    this.parameters = ImmutableList.copyOf(fitted);
    this.quick = quick;
    List<String> names = reproduction.parameters().stream().map(ReproductionParameter::name).toList();
    this.seedParameter = names.contains("seed") ? "seed" : names.contains("seeds") ? "seeds" : null;
    int k = seedParameter == null ? 1 : seeds;
    List<Long> list = new ArrayList<>();
    for (int i = 1; i <= k; i++) {
      list.add((long) i);
    }
    this.seeds = ImmutableList.copyOf(list);
    this.jobs = jobs;
    this.maxEvaluations = maxEvaluations;
  }

  /** The parameters' names, in order. */
  public List<String> parameterNames() {
    return parameters.stream().map(f -> f.dimension().name()).toList();
  }

  /** The seeds every point is run with. */
  public List<Long> seeds() {
    return seeds;
  }

  /**
   * Fits to the published baseline column, predicts the held-out bands at the fitted point and
   * judges them.
   *
   * @param runs where each of the reproduction's internal runs is reported (progress)
   */
  public CalibrationReport run(org.lockvisor.reproductions.api.ReproductionRuns runs) {
    long started = System.nanoTime();
    // The published figures are the same in every run: one run at the defaults gives the bands.
    ReproductionResult reference = reproduction.run(new ReproductionOptions(quick, Optional.empty(), runs,
        whatIf(ImmutableMap.of(), seeds.get(0))));
    List<Band> bands = reference.bands();
    BaselineTarget target = BaselineTarget.of(bands);
    return fit(target, heldOut(bands), runs, started);
  }

  /** The fit and prediction, given the target: the part a test can run with any published patched figures. */
  CalibrationReport fit(BaselineTarget target, List<Band> heldOut, org.lockvisor.reproductions.api.ReproductionRuns runs,
      long started) {
    List<Dimension.Continuous> dims = parameters.stream().map(Fitted::dimension).toList();
    Calibrator.Model baselineModel = (setting, seed) -> baselineFigures(bandsAt(setting, seed, runs), target);
    Calibrator.Fit fit = new Calibrator(dims, target.figures(), baselineModel, seeds, maxEvaluations, jobs).fit();
    List<String> heldOutKeys = heldOut.stream().map(Band::key).toList();
    Predictor.VariantModel heldOutModel = (variant, setting, seed) -> {
      Map<String, Double> m = new LinkedHashMap<>();
      for (Band b : bandsAt(setting, seed, runs)) {
        if (!b.baselineOnly()) {
          m.put(b.key(), b.simulated());
        }
      }
      return m;
    };
    Predictor.Prediction prediction = new Predictor(dims, heldOutModel, seeds, jobs).predict("patched", fit,
        heldOutKeys);
    List<CalibrationReport.Predicted> predicted = new ArrayList<>();
    for (Band b : heldOut) {
      Predictor.Figure f = prediction.figure(b.key());
      predicted.add(new CalibrationReport.Predicted(b.column(), f,
          Optional.of(new CalibrationReport.Judged(b.published(), b.low(), b.high(), b.contains(f.mean())))));
    }
    List<CalibrationReport.Parameter> ps = new ArrayList<>();
    for (Fitted p : parameters) {
      Dimension.Continuous d = p.dimension();
      double v = fit.values().get(d.name());
      ps.add(new CalibrationReport.Parameter(d.name(), d.low(), d.high(), d.log(), d.source(),
          p.whole() ? Math.round(v) : v, fit.standardErrors().get(d.name())));
    }
    return new CalibrationReport("reproduction " + reproduction.name() + (quick ? " (--quick)" : ""), "baseline",
        "the published baseline column", ImmutableList.copyOf(ps), target.figures(), fit.simulated(),
        fit.objective(), fit.evaluations(), seeds, ImmutableList.copyOf(predicted),
        (System.nanoTime() - started) / 1e9);
  }

  /** The bands that are not baseline-only and have a finite band: judged on the prediction. */
  static List<Band> heldOut(List<Band> bands) {
    return bands.stream().filter(b -> !b.baselineOnly()).toList();
  }

  /** Only the baseline-only bands' simulated figures that the target names. */
  private static Map<String, Double> baselineFigures(List<Band> bands, BaselineTarget target) {
    Map<String, Double> m = new LinkedHashMap<>();
    for (Band b : bands) {
      if (b.baselineOnly() && target.figures().containsKey(b.key())) {
        m.put(b.key(), b.simulated());
      }
    }
    return m;
  }

  private List<Band> bandsAt(Map<String, String> setting, long seed, org.lockvisor.reproductions.api.ReproductionRuns runs) {
    Map<String, String> texts = new LinkedHashMap<>();
    for (Fitted p : parameters) {
      String v = setting.get(p.dimension().name());
      if (v != null) {
        texts.put(p.dimension().name(), ParameterRange.text(Double.parseDouble(v), p.whole()));
      }
    }
    return reproduction.run(new ReproductionOptions(quick, Optional.empty(), runs, whatIf(texts, seed))).bands();
  }

  private WhatIf whatIf(Map<String, String> values, long seed) {
    List<String> settings = new ArrayList<>();
    values.forEach((k, v) -> settings.add(k + "=" + v));
    if (seedParameter != null) {
      settings.add(seedParameter + "=" + seed);
    }
    return WhatIf.parse(settings, List.of(reproduction), false, quick, ReproductionOptions.classPathRunner());
  }

  private static Fitted parameter(Reproduction r, ParameterRange p) {
    ReproductionParameter<?> declared = null;
    List<String> known = new ArrayList<>();
    for (ReproductionParameter<?> q : r.parameters()) {
      if (q.domain().isPresent() && !(q.domain().get() instanceof Dimension.Choice)) {
        known.add(q.name());
      }
      if (q.name().equals(p.name())) {
        declared = q;
      }
    }
    if (declared == null) {
      throw new UserInputException("--params: " + DidYouMean.unknownMessage("parameter of " + r.name(), p.name(),
          known) + " (or cost.<profile>.<KEY>)");
    }
    Dimension domain = declared.domain().orElseThrow(() -> new UserInputException("--params: parameter ["
        + p.name() + "] of " + r.name() + " declares no range to fit in; calibratable: " + known));
    double low;
    double high;
    boolean whole;
    boolean log;
    if (domain instanceof Dimension.Whole w) {
      low = w.low();
      high = w.high();
      whole = true;
      log = w.log();
    } else if (domain instanceof Dimension.Continuous c) {
      low = c.low();
      high = c.high();
      whole = false;
      log = c.log();
    } else {
      throw new UserInputException("--params: parameter [" + p.name() + "] of " + r.name() + " is a choice of "
          + ReproductionParameter.domainText(domain) + "; a calibration fits numbers; calibratable: " + known);
    }
    return new Fitted(within(p, low, high, log, domain.source(), whole), whole);
  }

  private static Fitted cost(Reproduction r, ParameterRange p) {
    String[] parts = p.name().split("\\.", -1);
    if (parts.length != 3) {
      throw new UserInputException("--params: [" + p.name() + "] is not cost.<profile>.<KEY>");
    }
    if (!r.archProfiles().contains(parts[1])) {
      throw new UserInputException("--params: [" + p.name() + "]: " + r.name() + " builds no machine on ["
          + parts[1] + "]; it uses " + new java.util.TreeSet<>(r.archProfiles()));
    }
    ArchProfile profile = ArchProfiles.byName(parts[1]);
    List<String> ranged = new ArrayList<>();
    Cost found = null;
    for (Cost c : profile.costs().costs()) {
      if (c.range().isPresent()) {
        ranged.add(c.key().name());
      }
      if (c.key().name().equals(parts[2])) {
        found = c;
      }
    }
    if (found == null || found.isNotApplicable()) {
      throw new UserInputException("--params: " + DidYouMean.unknownMessage(parts[1] + " cost key", parts[2], ranged));
    }
    Cost.Range range = found.range().orElseThrow(() -> new UserInputException("--params: cost [" + p.name()
        + "] declares no range (only estimates do); with a range: " + ranged));
    boolean whole = found.key().unit() == CostKey.Unit.COUNT;
    return new Fitted(within(p, range.low(), range.high(), range.spansDecades(), "[" + found.source().confidence()
        + "] " + found.source().reference(), whole), whole);
  }

  /** The declared range, or the one given if it lies inside it. */
  private static Dimension.Continuous within(ParameterRange p, double low, double high, boolean log, String source,
      boolean whole) {
    ParameterRange.Range declared = new ParameterRange.Range(low, high, whole);
    if (p.range().isEmpty()) {
      return new Dimension.Continuous(p.name(), low, high, log, source);
    }
    ParameterRange.Range given = p.range().get();
    if (!declared.contains(given)) {
      throw new UserInputException("--params: range [" + p.name() + "=" + given + "] lies outside the declared "
          + declared + " (" + source + ")");
    }
    return new Dimension.Continuous(p.name(), given.low(), given.high(), given.log(), source);
  }
}

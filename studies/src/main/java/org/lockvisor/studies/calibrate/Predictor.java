package org.lockvisor.studies.calibrate;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.apache.commons.math3.distribution.TDistribution;
import org.lockvisor.studies.envelope.Dimension;

/**
 * Predicts figures of the other variants at a fitted point, with two intervals (both 95%):
 *
 * <ul>
 *   <li>from the replications: Student's t interval of the mean over the seeds ({@code t(0.975,
 *       K-1) * sd / sqrt(K)}; none with one seed);
 *   <li>from the fit's uncertainty, by linearisation: the variant is re-run (same seeds, common
 *       random numbers) at {@code theta +- SE_j} along each parameter {@code j} alone (clamped
 *       into its range), the figure's sensitivity is {@code d_j = (f(+) - f(-)) / 2}, and the
 *       half-width is {@code 1.96 * sqrt(sum_j d_j^2)}, i.e. the diagonal of the Gauss-Newton
 *       covariance propagated to first order (correlations between the parameters' errors are
 *       left out).
 * </ul>
 *
 * The two are combined in quadrature into {@link Figure#low()} and {@link Figure#high()}. Cost:
 * {@code (1 + 2P) * K} runs per variant for {@code P} parameters and {@code K} seeds.
 */
public final class Predictor {

  /** One variant's simulation at a setting ({@code --set} texts) and seed: named figures. */
  @FunctionalInterface
  public interface VariantModel {
    Map<String, Double> simulate(String variant, Map<String, String> setting, long seed);
  }

  /**
   * One predicted figure.
   *
   * @param mean the mean over the seeds at the fitted point
   * @param replicationHalfWidth half-width of the 95% t interval of the mean (0 with one seed)
   * @param fitHalfWidth half-width from the fit's standard errors (1.96 sigma, linearised)
   * @param low {@code mean - sqrt(rep^2 + fit^2)}
   * @param high {@code mean + sqrt(rep^2 + fit^2)}
   */
  public record Figure(String name, double mean, double replicationHalfWidth, double fitHalfWidth, double low,
      double high) {}

  /** One variant's predicted figures, in the order asked. */
  public record Prediction(String variant, ImmutableList<Figure> figures) {
    public Figure figure(String name) {
      return figures.stream().filter(f -> f.name().equals(name)).findFirst()
          .orElseThrow(() -> new IllegalArgumentException("no predicted figure [" + name + "]"));
    }
  }

  private final List<Dimension.Continuous> parameters;
  private final VariantModel model;
  private final ImmutableList<Long> seeds;
  private final int jobs;

  public Predictor(List<Dimension.Continuous> parameters, VariantModel model, List<Long> seeds, int jobs) {
    checkArgument(!seeds.isEmpty(), "prediction needs at least one seed");
    this.parameters = ImmutableList.copyOf(parameters);
    this.model = model;
    this.seeds = ImmutableList.copyOf(seeds);
    this.jobs = jobs;
  }

  /** The prediction of {@code figures} of {@code variant} at {@code fit}. */
  public Prediction predict(String variant, Calibrator.Fit fit, List<String> figures) {
    List<Map<String, Double>> atFit = runs(variant, fit.setting());
    Map<String, double[]> sensitivity = new LinkedHashMap<>();
    for (String f : figures) {
      sensitivity.put(f, new double[parameters.size()]);
    }
    for (int j = 0; j < parameters.size(); j++) {
      Dimension.Continuous p = parameters.get(j);
      double value = fit.values().get(p.name());
      double se = fit.standardErrors().getOrDefault(p.name(), 0.0);
      if (!(se > 0)) {
        continue;
      }
      double up = Math.min(p.high(), value + se);
      double down = Math.max(p.low(), value - se);
      if (up <= down) {
        continue;
      }
      List<Map<String, Double>> plus = runs(variant, moved(fit.setting(), p.name(), up));
      List<Map<String, Double>> minus = runs(variant, moved(fit.setting(), p.name(), down));
      for (String f : figures) {
        // per one standard error (a clamped side shortens the step, not the slope)
        sensitivity.get(f)[j] = (mean(plus, f) - mean(minus, f)) / (up - down) * se;
      }
    }
    List<Figure> out = new ArrayList<>();
    for (String f : figures) {
      double mean = mean(atFit, f);
      double rep = replicationHalfWidth(atFit, f);
      double sumSquares = 0;
      for (double d : sensitivity.get(f)) {
        sumSquares += d * d;
      }
      double fitHalf = 1.96 * Math.sqrt(sumSquares);
      double total = Math.sqrt(rep * rep + fitHalf * fitHalf);
      out.add(new Figure(f, mean, rep, fitHalf, mean - total, mean + total));
    }
    return new Prediction(variant, ImmutableList.copyOf(out));
  }

  private List<Map<String, Double>> runs(String variant, Map<String, String> setting) {
    List<Callable<Map<String, Double>>> tasks = new ArrayList<>();
    for (long seed : seeds) {
      tasks.add(() -> model.simulate(variant, setting, seed));
    }
    return Parallel.map(tasks, jobs);
  }

  private static ImmutableMap<String, String> moved(Map<String, String> setting, String name, double value) {
    Map<String, String> m = new LinkedHashMap<>(setting);
    m.put(name, Double.toString(value));
    return ImmutableMap.copyOf(m);
  }

  private static double mean(List<Map<String, Double>> runs, String figure) {
    double sum = 0;
    for (Map<String, Double> r : runs) {
      Double v = r.get(figure);
      if (v == null) {
        throw new org.lockvisor.experiment.UserInputException("figure [" + figure
            + "] is not produced by this variant; it produces " + new java.util.TreeSet<>(r.keySet()));
      }
      sum += v;
    }
    return sum / runs.size();
  }

  /** Half-width of the 95% Student t interval of the mean; 0 with one run. */
  static double replicationHalfWidth(List<Map<String, Double>> runs, String figure) {
    int k = runs.size();
    if (k < 2) {
      return 0;
    }
    double mean = mean(runs, figure);
    double ss = 0;
    for (Map<String, Double> r : runs) {
      double d = r.get(figure) - mean;
      ss += d * d;
    }
    double sd = Math.sqrt(ss / (k - 1));
    return new TDistribution(k - 1).inverseCumulativeProbability(0.975) * sd / Math.sqrt(k);
  }
}

package org.lockvisor.studies.calibrate;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSortedMap;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.commons.math3.analysis.MultivariateFunction;
import org.apache.commons.math3.linear.MatrixUtils;
import org.apache.commons.math3.linear.RealMatrix;
import org.apache.commons.math3.linear.SingularValueDecomposition;
import org.apache.commons.math3.optim.InitialGuess;
import org.apache.commons.math3.optim.MaxEval;
import org.apache.commons.math3.optim.PointValuePair;
import org.apache.commons.math3.optim.SimpleBounds;
import org.apache.commons.math3.optim.nonlinear.scalar.GoalType;
import org.apache.commons.math3.optim.nonlinear.scalar.ObjectiveFunction;
import org.apache.commons.math3.optim.nonlinear.scalar.noderiv.BOBYQAOptimizer;
import org.apache.commons.math3.optim.univariate.BrentOptimizer;
import org.apache.commons.math3.optim.univariate.SearchInterval;
import org.apache.commons.math3.optim.univariate.UnivariateObjectiveFunction;
import org.apache.commons.math3.optim.univariate.UnivariatePointValuePair;
import org.lockvisor.experiment.UserInputException;
import org.lockvisor.studies.envelope.Dimension;

/**
 * Fits named setup parameters so that the simulated figures of the <em>baseline</em> match measured
 * ones, by a derivative-free optimiser of Commons Math 3.6.1: BOBYQA (Powell 2009) for two or more
 * parameters, Brent's method for one. The parameters move in their declared ranges, rescaled to
 * [0, 1] (in log space where the range is log-uniform). The objective is the mean squared relative
 * error over the target's figures, each simulated figure averaged over fixed seeds (common random
 * numbers, so the objective is a deterministic function of the parameters).
 *
 * <p>The objective sees only the target figures it is given: a prediction of another variant is
 * made afterwards at the fitted point and can not feed back into the fit.
 *
 * <p>Uncertainty of the fit: the Gauss-Newton covariance {@code s^2 (J^T J)^+} of the rescaled
 * parameters at the optimum, with {@code J} the forward-difference Jacobian of the relative
 * residuals and {@code s^2} their variance over the seeds (a fit can not be more certain than the
 * noise of the figures it fits); reported as one standard error per parameter in its own unit.
 */
public final class Calibrator {

  /** What a simulation of the baseline at a setting gives: named figures (the target's names). */
  @FunctionalInterface
  public interface Model {
    Map<String, Double> simulate(Map<String, String> setting, long seed);
  }

  /** The fitted point. */
  public record Fit(ImmutableMap<String, Double> values, ImmutableMap<String, String> setting,
      ImmutableMap<String, Double> standardErrors, double objective, int evaluations,
      ImmutableSortedMap<String, Double> simulated) {}

  private final List<Dimension.Continuous> parameters;
  private final ImmutableSortedMap<String, Double> target;
  private final Model model;
  private final ImmutableList<Long> seeds;
  private final int maxEvaluations;
  private final int jobs;
  private int evaluations;

  public Calibrator(List<Dimension.Continuous> parameters, Map<String, Double> target, Model model, List<Long> seeds,
      int maxEvaluations) {
    this(parameters, target, model, seeds, maxEvaluations, 1);
  }

  /**
   * A calibrator that runs the seeds of one evaluation on {@code jobs} threads ({@code model} must
   * then be safe to call from several threads; the fit does not depend on {@code jobs}).
   */
  public Calibrator(List<Dimension.Continuous> parameters, Map<String, Double> target, Model model, List<Long> seeds,
      int maxEvaluations, int jobs) {
    checkArgument(jobs >= 1, "jobs must be positive: %s", jobs);
    this.jobs = jobs;
    checkArgument(!parameters.isEmpty(), "calibration needs at least one parameter");
    checkArgument(!target.isEmpty(), "calibration needs at least one target figure");
    checkArgument(!seeds.isEmpty(), "calibration needs at least one seed");
    checkArgument(maxEvaluations >= 10, "too few evaluations: %s", maxEvaluations);
    target.forEach((k, v) -> {
      if (!Double.isFinite(v) || v == 0) {
        throw new UserInputException("target figure [" + k + "] must be a finite, non-zero number: [" + v + "]");
      }
    });
    this.parameters = ImmutableList.copyOf(parameters);
    this.target = ImmutableSortedMap.copyOf(target);
    this.model = model;
    this.seeds = ImmutableList.copyOf(seeds);
    this.maxEvaluations = maxEvaluations;
  }

  /** Fits the parameters; fails with a {@link UserInputException} if the model lacks a target figure. */
  public Fit fit() {
    double[] start = new double[parameters.size()];
    java.util.Arrays.fill(start, 0.5);
    checkTargetIsSimulated(setting(start));
    double[] best;
    if (parameters.size() == 1) {
      double from = gridStart(1)[0];
      UnivariatePointValuePair p = new BrentOptimizer(1e-4, 1e-6).optimize(new MaxEval(maxEvaluations),
          new UnivariateObjectiveFunction(u -> objective(new double[] {u})), GoalType.MINIMIZE,
          new SearchInterval(Math.max(0, from - GRID_STEP * 2), Math.min(1, from + GRID_STEP * 2), from));
      best = new double[] {p.getPoint()};
    } else {
      int n = parameters.size();
      double[] lower = new double[n];
      double[] upper = new double[n];
      java.util.Arrays.fill(upper, 1);
      start = gridStart(n);
      PointValuePair p = new BOBYQAOptimizer(2 * n + 1, GRID_STEP, 1e-4).optimize(new MaxEval(maxEvaluations),
          new ObjectiveFunction((MultivariateFunction) this::objective), GoalType.MINIMIZE,
          new InitialGuess(start), new SimpleBounds(lower, upper));
      best = p.getPoint();
    }
    // the optimum's figures once: its objective, its residuals and the reported figures
    Map<String, Double> atBest = mean(setting(best));
    Map<String, Double> values = new LinkedHashMap<>();
    for (int i = 0; i < parameters.size(); i++) {
      values.put(parameters.get(i).name(), parameters.get(i).numberAt(clamp(best[i])));
    }
    ImmutableMap<String, Double> errors = standardErrors(best, atBest);
    return new Fit(ImmutableMap.copyOf(values), setting(best), errors, objective(atBest), evaluations,
        ImmutableSortedMap.copyOf(atBest));
  }

  /** Levels of the start grid in the unit box; BOBYQA's first trust region reaches the bounds from them. */
  private static final double GRID_STEP = 1.0 / 6;

  /**
   * BOBYQA and Brent are local methods and a simulated objective is a noisy step function, on which
   * they can stall near their start: with at most three parameters, the search starts from the best
   * point of the grid {1/6, 1/2, 5/6}^n (at most 27 points, in a fixed order, so the fit stays
   * deterministic), else from the centre; Brent searches within 1/3 of the unit interval around it.
   */
  private double[] gridStart(int n) {
    double[] centre = new double[n];
    java.util.Arrays.fill(centre, 0.5);
    if (n > 3) {
      return centre;
    }
    double[] levels = {GRID_STEP, 0.5, 1 - GRID_STEP};
    double[] best = centre;
    double bestValue = Double.POSITIVE_INFINITY;
    int points = (int) Math.pow(3, n);
    for (int k = 0; k < points; k++) {
      double[] u = new double[n];
      for (int j = 0, rest = k; j < n; j++, rest /= 3) {
        u[j] = levels[rest % 3];
      }
      double v = objective(u);
      if (v < bestValue) {
        bestValue = v;
        best = u;
      }
    }
    return best;
  }

  /** The setting ({@code --set} texts) of a point of the unit box. */
  public ImmutableMap<String, String> setting(double[] u) {
    ImmutableMap.Builder<String, String> b = ImmutableMap.builder();
    for (int i = 0; i < parameters.size(); i++) {
      b.put(parameters.get(i).name(), parameters.get(i).valueAt(clamp(u[i])));
    }
    return b.buildOrThrow();
  }

  private void checkTargetIsSimulated(Map<String, String> setting) {
    Map<String, Double> sim = model.simulate(setting, seeds.get(0));
    List<String> missing = new ArrayList<>();
    for (String k : target.keySet()) {
      if (!sim.containsKey(k)) {
        missing.add(k);
      }
    }
    if (!missing.isEmpty()) {
      throw new UserInputException("target figure" + (missing.size() > 1 ? "s " : " ") + missing
          + " not produced by the simulation; it produces " + new TreeSet<>(sim.keySet()));
    }
  }

  private double objective(double[] u) {
    return objective(mean(setting(u)));
  }

  /** The mean squared relative error of {@code sim}, the target's figures averaged over the seeds. */
  private double objective(Map<String, Double> sim) {
    double sum = 0;
    for (Map.Entry<String, Double> t : target.entrySet()) {
      double r = (sim.get(t.getKey()) - t.getValue()) / t.getValue();
      sum += r * r;
    }
    return sum / target.size();
  }

  /** The target's figures at {@code setting}, averaged over the seeds. */
  private Map<String, Double> mean(Map<String, String> setting) {
    Map<String, Double> sum = new LinkedHashMap<>();
    for (Map<String, Double> sim : simulateSeeds(setting)) {
      for (String k : target.keySet()) {
        sum.merge(k, sim.getOrDefault(k, Double.NaN), Double::sum);
      }
    }
    sum.replaceAll((k, v) -> v / seeds.size());
    return sum;
  }

  private ImmutableMap<String, Double> standardErrors(double[] best, Map<String, Double> atBest) {
    int m = target.size();
    int n = parameters.size();
    List<String> names = new ArrayList<>(target.keySet());
    double h = 0.02;
    double[] base = residuals(atBest, names);
    double[][] jac = new double[m][n];
    for (int j = 0; j < n; j++) {
      double[] u = best.clone();
      double step = best[j] + h <= 1 ? h : -h;
      u[j] += step;
      double[] r = residuals(mean(setting(u)), names);
      for (int i = 0; i < m; i++) {
        jac[i][j] = (r[i] - base[i]) / step;
      }
    }
    double s2 = seedVariance(setting(best), names);
    RealMatrix j = MatrixUtils.createRealMatrix(jac);
    RealMatrix cov = new SingularValueDecomposition(j.transpose().multiply(j)).getSolver().getInverse()
        .scalarMultiply(s2);
    Map<String, Double> out = new LinkedHashMap<>();
    for (int k = 0; k < n; k++) {
      Dimension.Continuous p = parameters.get(k);
      double sdUnit = Math.sqrt(Math.max(0, cov.getEntry(k, k)));
      // one standard error in the unit box, as a width in the parameter's own unit at the fit
      double lo = p.numberAt(clamp(best[k] - sdUnit));
      double hi = p.numberAt(clamp(best[k] + sdUnit));
      out.put(p.name(), (hi - lo) / 2);
    }
    return ImmutableMap.copyOf(out);
  }

  /** The variance of the relative residuals over the seeds, pooled over the figures (0 with one seed). */
  private double seedVariance(Map<String, String> setting, List<String> names) {
    if (seeds.size() < 2) {
      return 0;
    }
    double[][] per = new double[seeds.size()][];
    List<Map<String, Double>> sims = simulateSeeds(setting);
    for (int s = 0; s < seeds.size(); s++) {
      per[s] = residuals(sims.get(s), names);
    }
    double total = 0;
    for (int i = 0; i < names.size(); i++) {
      double mean = 0;
      for (double[] r : per) {
        mean += r[i] / per.length;
      }
      for (double[] r : per) {
        total += (r[i] - mean) * (r[i] - mean) / (per.length - 1);
      }
    }
    // the mean over the seeds has variance s^2 / seeds
    return total / names.size() / seeds.size();
  }

  /** The model at {@code setting} for every seed, in seed order, on {@link #jobs} threads. */
  private List<Map<String, Double>> simulateSeeds(Map<String, String> setting) {
    evaluations += seeds.size();
    List<java.util.concurrent.Callable<Map<String, Double>>> tasks = new ArrayList<>();
    for (long seed : seeds) {
      tasks.add(() -> model.simulate(setting, seed));
    }
    return Parallel.map(tasks, jobs);
  }

  private double[] residuals(Map<String, Double> sim, List<String> names) {
    double[] r = new double[names.size()];
    for (int i = 0; i < r.length; i++) {
      double t = target.get(names.get(i));
      r[i] = (sim.get(names.get(i)) - t) / t;
    }
    return r;
  }

  private static double clamp(double u) {
    return Math.min(Math.nextDown(1.0), Math.max(0, u));
  }
}

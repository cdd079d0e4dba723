package org.lockvisor.studies.envelope;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Latin hypercube sampling (McKay, Beckman and Conover, Technometrics 21, 1979): {@code n} samples
 * of {@code k} dimensions such that, in every dimension, each of the {@code n} equal strata of the
 * unit interval holds exactly one sample, at a uniformly random place within it; the strata are
 * paired across dimensions by independent random permutations. Deterministic for a seed.
 */
public final class LatinHypercube {

  /** One sample: its point in the unit hypercube and the parameter values it sets. */
  public record Sample(int index, ImmutableList<Double> unit, ImmutableMap<String, String> values,
      ImmutableList<Double> numbers) {}

  private LatinHypercube() {}

  /** {@code n} samples of {@code dimensions}, drawn from {@code seed}. */
  public static ImmutableList<Sample> sample(List<Dimension> dimensions, int n, long seed) {
    checkArgument(n >= 1, "an envelope needs at least one sample: %s", n);
    checkArgument(!dimensions.isEmpty(), "an envelope needs at least one parameter to vary");
    int k = dimensions.size();
    SplittableRandom random = new SplittableRandom(seed);
    double[][] u = new double[n][k];
    for (int d = 0; d < k; d++) {
      int[] strata = permutation(n, random);
      for (int i = 0; i < n; i++) {
        u[i][d] = (strata[i] + random.nextDouble()) / n;
      }
    }
    ImmutableList.Builder<Sample> out = ImmutableList.builder();
    for (int i = 0; i < n; i++) {
      ImmutableList.Builder<Double> unit = ImmutableList.builder();
      ImmutableList.Builder<Double> numbers = ImmutableList.builder();
      ImmutableMap.Builder<String, String> values = ImmutableMap.builder();
      for (int d = 0; d < k; d++) {
        Dimension dim = dimensions.get(d);
        unit.add(u[i][d]);
        numbers.add(dim.numberAt(u[i][d]));
        values.put(dim.name(), dim.valueAt(u[i][d]));
      }
      out.add(new Sample(i, unit.build(), values.buildOrThrow(), numbers.build()));
    }
    return out.build();
  }

  /** A uniformly random permutation of 0..n-1 (Fisher-Yates). */
  private static int[] permutation(int n, SplittableRandom random) {
    int[] p = new int[n];
    for (int i = 0; i < n; i++) {
      p[i] = i;
    }
    for (int i = n - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      int t = p[i];
      p[i] = p[j];
      p[j] = t;
    }
    return p;
  }
}

package org.lockvisor.experiment.model;

import com.google.common.collect.ImmutableMap;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The points of a sweep: the cartesian product of the swept parameters' values, the first
 * parameter varying slowest, in a stable order (the point index is its identity for sharding,
 * resuming and seeding).
 */
public final class SweepPoints {
  /** Upper bound on the points of one sweep. */
  public static final int MAX_POINTS = 100_000;

  private SweepPoints() {}

  /** Number of points (1 for an experiment without a sweep); saturates above {@link #MAX_POINTS}. */
  public static long count(Experiment e) {
    long n = 1;
    for (List<String> values : e.sweep().values()) {
      n *= Math.max(values.size(), 0);
      if (n > MAX_POINTS) {
        return MAX_POINTS + 1L;
      }
    }
    return n;
  }

  /** The overrides of every point, in point order (one empty map without a sweep). */
  public static List<Map<String, String>> of(Experiment e) {
    List<Map<String, String>> points = new ArrayList<>();
    points.add(Map.of());
    for (Map.Entry<String, List<String>> parameter : e.sweep().entrySet()) {
      List<Map<String, String>> next = new ArrayList<>();
      for (Map<String, String> point : points) {
        for (String value : parameter.getValue()) {
          Map<String, String> m = new LinkedHashMap<>(point);
          m.put(parameter.getKey(), value);
          next.add(m);
        }
      }
      points = next;
    }
    return points.stream().map(ImmutableMap::copyOf).map(m -> (Map<String, String>) m).toList();
  }

  /**
   * The seed of replication {@code replication} of point {@code point}: a SplitMix64 mix of the
   * three, so seeds of different points and replications are unrelated and reproducible.
   */
  public static long seed(long root, int point, int replication) {
    long z = root + 0x9E3779B97F4A7C15L * (1 + point) + 0xD1B54A32D192ED03L * (1 + replication);
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}

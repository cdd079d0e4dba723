package org.lockvisor.reproductions.api;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSortedMap;
import java.util.List;
import java.util.Map;
import org.lockvisor.studies.envelope.Band;

/**
 * What a reproduction found.
 *
 * @param name the reproduction's plugin name
 * @param reproduced whether the simulated result shows the published direction within the bands
 * @param headline one line: the verdict and the figure that decided it
 * @param report the human-readable tables (published beside simulated), one line per element
 * @param metrics the figures behind the verdict, by stable key, for JSON consumers
 * @param data the reproduction's own structured JSON payload (the shape its issue specifies, e.g.
 *     {@code rows} or {@code profiles}), in insertion order; values are {@code String}, {@code
 *     Number}, {@code Boolean}, {@code List}, {@code Map} or {@code null}. The CLI merges it into
 *     the reproduction's JSON object after {@code experiment}, {@code reproduced} and {@code
 *     headline}.
 * @param bands every published figure the reproduction judges, with its band and the simulated
 *     value ({@link Band}); written to the JSON output as {@code bands}. Empty for a reproduction
 *     that has not declared them.
 */
public record ReproductionResult(
    String name,
    boolean reproduced,
    String headline,
    ImmutableList<String> report,
    ImmutableSortedMap<String, Double> metrics,
    Map<String, Object> data,
    ImmutableList<Band> bands) {

  public ReproductionResult {
    checkArgument(name != null && !name.isBlank(), "reproduction result needs a name");
    checkArgument(headline != null && !headline.isBlank(), "reproduction [%s] result needs a headline", name);
    checkArgument(headline.indexOf('\n') < 0, "reproduction [%s] headline must be one line", name);
    report = ImmutableList.copyOf(report);
    metrics = ImmutableSortedMap.copyOf(metrics);
    metrics.forEach((key, value) ->
        checkArgument(Double.isFinite(value), "reproduction [%s] metric [%s] is not finite: %s", name, key, value));
    // Insertion order is part of the JSON contract; a LinkedHashMap copy keeps it and allows nulls.
    data = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(data == null ? Map.of() : data));
    bands = bands == null ? ImmutableList.of() : ImmutableList.copyOf(bands);
    java.util.Set<String> keys = new java.util.HashSet<>();
    for (Band b : bands) {
      checkArgument(keys.add(b.key()), "reproduction [%s] judges band [%s] twice", name, b.key());
    }
  }

  /** A result without structured bands (kept for reproductions that have not declared them). */
  public ReproductionResult(String name, boolean reproduced, String headline, ImmutableList<String> report,
      ImmutableSortedMap<String, Double> metrics, Map<String, Object> data) {
    this(name, reproduced, headline, report, metrics, data, ImmutableList.of());
  }

  /** This result with {@code bands}. */
  public ReproductionResult withBands(List<Band> bands) {
    return new ReproductionResult(name, reproduced, headline, report, metrics, data, ImmutableList.copyOf(bands));
  }

  public static ReproductionResult of(
      String name, boolean reproduced, String headline, List<String> report, Map<String, Double> metrics) {
    return of(name, reproduced, headline, report, metrics, ImmutableMap.of());
  }

  public static ReproductionResult of(
      String name, boolean reproduced, String headline, List<String> report, Map<String, Double> metrics,
      Map<String, Object> data) {
    return new ReproductionResult(
        name, reproduced, headline, ImmutableList.copyOf(report), ImmutableSortedMap.copyOf(metrics), data);
  }
}

package org.lockvisor.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.lockvisor.reproductions.support.Plot;

/**
 * Plots of a merged sweep ({@code sweep.json}): for each metric, the mean against the first swept
 * parameter, one line per variant and combination of the other swept parameters, with 95 %
 * confidence bars when the sweep has replications. Written as {@code plots/<metric>.png} and
 * {@code .svg}. A parameter whose values are not all numbers is plotted by position (1, 2, ...)
 * and the legend names the values.
 */
final class SweepPlots {

  /** At most this many metrics are plotted (the first ones in the summary's order). */
  static final int MAX_PLOTS = 16;

  private SweepPlots() {}

  /** Writes the plots into {@code directory}; returns the metrics plotted. */
  static List<String> write(JsonNode merged, Path directory) throws IOException {
    JsonNode points = merged.path("points");
    if (!points.isArray() || points.isEmpty()) {
      return List.of();
    }
    List<String> params = new ArrayList<>();
    points.get(0).path("overrides").fieldNames().forEachRemaining(params::add);
    if (params.isEmpty()) {
      return List.of();
    }
    String xParam = params.get(0);
    List<String> xValues = new ArrayList<>(new LinkedHashSet<>(values(points, xParam)));
    boolean numeric = xValues.stream().allMatch(SweepPlots::isNumber);
    Set<String> metrics = new LinkedHashSet<>();
    for (JsonNode p : points) {
      p.path("summary").fields().forEachRemaining(variant -> variant.getValue().fieldNames().forEachRemaining(m -> {
        if (!m.equals("paired")) {
          metrics.add(m);
        }
      }));
    }
    List<String> plotted = new ArrayList<>();
    for (String metric : metrics) {
      if (plotted.size() == MAX_PLOTS) {
        break;
      }
      // series key: variant + other parameters -> x -> (mean, ci)
      Map<String, TreeMap<Double, double[]>> series = new LinkedHashMap<>();
      for (JsonNode p : points) {
        String xv = p.path("overrides").path(xParam).asText();
        double x = numeric ? Double.parseDouble(xv) : xValues.indexOf(xv) + 1;
        StringBuilder others = new StringBuilder();
        for (String q : params.subList(1, params.size())) {
          others.append(others.length() == 0 ? "" : ", ").append(q).append('=').append(p.path("overrides").path(q).asText());
        }
        Iterator<Map.Entry<String, JsonNode>> variants = p.path("summary").fields();
        while (variants.hasNext()) {
          Map.Entry<String, JsonNode> v = variants.next();
          JsonNode stat = v.getValue().path(metric);
          if (!stat.has("mean")) {
            continue;
          }
          String key = v.getKey() + (others.length() == 0 ? "" : " (" + others + ")");
          series.computeIfAbsent(key, k -> new TreeMap<>())
              .put(x, new double[] {stat.path("mean").asDouble(), stat.path("ci95").asDouble()});
        }
      }
      if (series.isEmpty()) {
        continue;
      }
      String xLabel = numeric ? xParam : xParam + " (" + String.join(", ", numbered(xValues)) + ")";
      String partial = merged.path("partial").asBoolean() ? "PARTIAL (" + points.size() + " of "
          + merged.path("points_total").asText("?") + " points) " : "";
      Plot plot = new Plot(partial + merged.path("experiment").asText("sweep") + ": " + metric, xLabel, metric).yAuto();
      series.forEach((name, byX) -> {
        double[] xs = byX.keySet().stream().mapToDouble(Double::doubleValue).toArray();
        double[] ys = byX.values().stream().mapToDouble(v -> v[0]).toArray();
        double[] es = byX.values().stream().mapToDouble(v -> v[1]).toArray();
        plot.lineWithErrors(name, xs, ys, es);
      });
      plot.write(directory, fileName(metric));
      plotted.add(metric);
    }
    return plotted;
  }

  static String fileName(String metric) {
    return metric.replaceAll("[^A-Za-z0-9._-]", "_");
  }

  private static List<String> values(JsonNode points, String param) {
    List<String> out = new ArrayList<>();
    points.forEach(p -> out.add(p.path("overrides").path(param).asText()));
    return out;
  }

  private static List<String> numbered(List<String> values) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < values.size(); i++) {
      out.add((i + 1) + "=" + values.get(i));
    }
    return out;
  }

  private static boolean isNumber(String s) {
    try {
      Double.parseDouble(s);
      return true;
    } catch (NumberFormatException e) {
      return false;
    }
  }
}

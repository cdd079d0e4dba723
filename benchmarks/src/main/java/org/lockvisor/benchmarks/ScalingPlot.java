package org.lockvisor.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;

/**
 * Draws the scaling study of docs/performance.md from the CSV of {@code
 * benchmarks/scaling/run-scaling.sh}: one chart per axis (simulated seconds, vCPUs, tasks), each
 * with the JVM's CPU seconds (user + system, start-up and JIT included) and the run's wall seconds
 * (from result.json; meaningful only on a quiet machine) on the left axis and the peak RSS and
 * largest live heap (MB) on the right axis, side by side in one PNG.
 *
 * <p>Usage: {@code java -cp benchmarks.jar org.lockvisor.benchmarks.ScalingPlot CSV OUT.png}.
 */
public final class ScalingPlot {

  private ScalingPlot() {}

  private static final Map<String, String> AXES = new LinkedHashMap<>();

  static {
    AXES.put("simulated_s", "simulated seconds (32 vCPUs on 16 CPUs, 256 iperf streams)");
    AXES.put("vcpus", "guest vCPUs (on vCPUs/2 CPUs, 256 iperf streams, 0.25 s simulated)");
    AXES.put("tasks", "tasks (sched messaging to completion, 16 vCPUs on 8 CPUs)");
  }

  public static void main(String[] args) throws IOException {
    if (args.length != 2) {
      System.err.println("usage: ScalingPlot CSV OUT.png");
      System.exit(2);
    }
    List<String[]> rows = new ArrayList<>();
    List<String> lines = Files.readAllLines(Path.of(args[0]));
    List<String> header = List.of(lines.get(0).split(","));
    for (String line : lines.subList(1, lines.size())) {
      if (!line.isBlank()) {
        rows.add(line.split(","));
      }
    }
    int axis = header.indexOf("axis");
    int x = header.indexOf("x");
    int cpu = header.indexOf("jvm_cpu_s");
    int wall = header.indexOf("run_wall_ns");
    int rss = header.indexOf("max_rss_mb");
    int live = header.indexOf("max_live_heap_mb");
    List<XYChart> charts = new ArrayList<>();
    for (Map.Entry<String, String> a : AXES.entrySet()) {
      List<String[]> points = rows.stream().filter(r -> r[axis].equals(a.getKey())).toList();
      if (points.isEmpty()) {
        continue;
      }
      XYChart chart = new XYChartBuilder().width(560).height(420).title(a.getKey())
          .xAxisTitle(a.getValue()).build();
      chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
      chart.getStyler().setChartTitleVisible(false);
      chart.getStyler().setAxisTitleFont(chart.getStyler().getAxisTitleFont().deriveFont(11f));
      chart.setYAxisGroupTitle(0, "seconds");
      chart.setYAxisGroupTitle(1, "MB");
      chart.getStyler().setYAxisGroupPosition(1, Styler.YAxisPosition.Right);
      chart.getStyler().setYAxisMin(0, 0.0);
      chart.getStyler().setYAxisMin(1, 0.0);
      double[] xs = column(points, x, 1);
      chart.addSeries("JVM CPU s", xs, column(points, cpu, 1));
      chart.addSeries("run wall s", xs, column(points, wall, 1e-9));
      XYSeries r = chart.addSeries("peak RSS MB", xs, column(points, rss, 1));
      r.setYAxisGroup(1);
      XYSeries h = chart.addSeries("live heap MB", xs, column(points, live, 1));
      h.setYAxisGroup(1);
      charts.add(chart);
    }
    BitmapEncoder.saveBitmap(charts, 1, charts.size(), args[1].replaceFirst("\\.png$", ""),
        BitmapEncoder.BitmapFormat.PNG);
  }

  private static double[] column(List<String[]> rows, int index, double scale) {
    return rows.stream().mapToDouble(r -> Double.parseDouble(r[index]) * scale).toArray();
  }
}

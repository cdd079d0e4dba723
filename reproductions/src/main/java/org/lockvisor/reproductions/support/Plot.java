package org.lockvisor.reproductions.support;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.collect.ImmutableList;
import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;
import org.lockvisor.experiment.io.AtomicFiles;

/**
 * An XY plot of one metric against a swept parameter, one line per variant, published figures as
 * unconnected markers; written as PNG and SVG side by side, atomically. Rendering is headless and
 * deterministic (fixed size, fixed palette, no timestamps).
 */
public final class Plot {

  /**
   * One series: simulated lines connect their points; {@code published} series show markers only;
   * {@code errors} (may be null) are half-widths of confidence bars around each y.
   */
  public record Series(String name, double[] x, double[] y, boolean published, double[] errors) {
    public Series {
      checkArgument(x.length == y.length && x.length > 0, "series [%s] needs matching, non-empty x and y", name);
      checkArgument(errors == null || errors.length == y.length, "series [%s] needs one error per point", name);
      x = x.clone();
      y = y.clone();
      errors = errors == null ? null : errors.clone();
    }

    public Series(String name, double[] x, double[] y, boolean published) {
      this(name, x, y, published, null);
    }
  }

  private static final Color[] PALETTE = {
      new Color(0x1f, 0x77, 0xb4), new Color(0xd6, 0x27, 0x28), new Color(0x2c, 0xa0, 0x2c),
      new Color(0xff, 0x7f, 0x0e), new Color(0x94, 0x67, 0xbd), new Color(0x8c, 0x56, 0x4b)};

  private final String title;
  private final String xLabel;
  private final String yLabel;
  private final List<Series> series = new ArrayList<>();
  private boolean logX;
  private boolean yFromZero = true;

  public Plot(String title, String xLabel, String yLabel) {
    this.title = title;
    this.xLabel = xLabel;
    this.yLabel = yLabel;
  }

  public Plot logX() {
    this.logX = true;
    return this;
  }

  public Plot yAuto() {
    this.yFromZero = false;
    return this;
  }

  public Plot line(String name, double[] x, double[] y) {
    series.add(new Series(name, x, y, false));
    return this;
  }

  /** A simulated line with confidence bars ({@code errors}: half-widths, e.g. the 95 % interval). */
  public Plot lineWithErrors(String name, double[] x, double[] y, double[] errors) {
    series.add(new Series(name, x, y, false, errors));
    return this;
  }

  public Plot published(String name, double[] x, double[] y) {
    series.add(new Series(name, x, y, true));
    return this;
  }

  public ImmutableList<Series> series() {
    return ImmutableList.copyOf(series);
  }

  /**
   * Writes {@code <directory>/<baseName>.png} and {@code .svg}.
   *
   * @return the two files written
   */
  public ImmutableList<Path> write(Path directory, String baseName) throws IOException {
    checkArgument(!series.isEmpty(), "plot [%s] has no series", title);
    System.setProperty("java.awt.headless", "true");
    XYChart chart = build();
    Path png = AtomicFiles.writeBytes(directory.resolve(baseName + ".png"),
        BitmapEncoder.getBitmapBytes(chart, BitmapEncoder.BitmapFormat.PNG));
    Path svg = AtomicFiles.write(directory.resolve(baseName + ".svg"),
        out -> VectorGraphicsEncoder.saveVectorGraphic(chart, out, VectorGraphicsEncoder.VectorGraphicsFormat.SVG));
    return ImmutableList.of(png, svg);
  }

  private XYChart build() {
    int legendChars = series.stream().mapToInt(x -> x.name().length() + 6).sum();
    int height = legendChars > 90 ? 500 + 18 * series.size() : 500;
    XYChart chart = new XYChartBuilder().width(800).height(height).title(title)
        .xAxisTitle(xLabel).yAxisTitle(yLabel).build();
    Styler styler = chart.getStyler();
    styler.setLegendPosition(Styler.LegendPosition.OutsideS);
    // a legend wider than the chart goes one series per line
    styler.setLegendLayout(legendChars > 90 ? Styler.LegendLayout.Vertical : Styler.LegendLayout.Horizontal);
    styler.setChartBackgroundColor(Color.WHITE);
    styler.setPlotBackgroundColor(Color.WHITE);
    styler.setAntiAlias(true);
    chart.getStyler().setXAxisLogarithmic(logX);
    if (yFromZero) {
      chart.getStyler().setYAxisMin(0.0);
    }
    int colour = 0;
    for (Series s : series) {
      XYSeries xy = s.errors() == null
          ? chart.addSeries(s.name(), s.x(), s.y())
          : chart.addSeries(s.name(), s.x(), s.y(), s.errors());
      Color c = PALETTE[colour++ % PALETTE.length];
      xy.setLineColor(c);
      xy.setMarkerColor(c);
      if (s.published()) {
        xy.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
        xy.setMarker(SeriesMarkers.DIAMOND);
      } else {
        xy.setMarker(SeriesMarkers.CIRCLE);
        xy.setLineStyle(new BasicStroke(2f));
      }
    }
    return chart;
  }
}

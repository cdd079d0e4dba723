package org.lockvisor.reports;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.html.HtmlEscapers;
import java.util.List;
import java.util.Locale;

/**
 * A small self-contained SVG bar chart (one bar per label, value printed on the bar), for the
 * report pages: no fonts or scripts to load, so it renders offline and inline in HTML.
 */
public final class BarChartSvg {

  private static final String[] COLORS = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"};

  private BarChartSvg() {}

  /** {@code title} above bars of {@code values} (non-negative) named by {@code labels}. */
  public static String render(String title, List<String> labels, List<Double> values) {
    checkArgument(labels.size() == values.size(), "%s labels for %s values", labels.size(), values.size());
    int width = 640;
    int barArea = 420;
    int rowHeight = 26;
    int top = 30;
    int height = top + rowHeight * labels.size() + 10;
    double max = values.stream().mapToDouble(Double::doubleValue).max().orElse(0);
    List<String> printed = NumberColumns.format(values);
    StringBuilder svg = new StringBuilder();
    svg.append(String.format(Locale.ROOT,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
            + "font-family=\"sans-serif\" font-size=\"12\">%n", width, height, width, height));
    svg.append(String.format(Locale.ROOT, "<text x=\"4\" y=\"18\" font-size=\"14\" font-weight=\"bold\">%s</text>%n",
        esc(title)));
    for (int i = 0; i < labels.size(); i++) {
      double v = values.get(i);
      double w = max <= 0 ? 0 : barArea * Math.max(0, v) / max;
      int y = top + i * rowHeight;
      svg.append(String.format(Locale.ROOT, "<text x=\"4\" y=\"%d\">%s</text>%n", y + 16, esc(labels.get(i))));
      svg.append(String.format(Locale.ROOT,
          "<rect x=\"110\" y=\"%d\" width=\"%.1f\" height=\"20\" fill=\"%s\"><title>%s: %s</title></rect>%n",
          y + 2, w, COLORS[i % COLORS.length], esc(labels.get(i)), printed.get(i)));
      svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\">%s</text>%n", 114 + w, y + 16, printed.get(i)));
    }
    svg.append("</svg>\n");
    return svg.toString();
  }


  private static String esc(String s) {
    return HtmlEscapers.htmlEscaper().escape(s);
  }
}

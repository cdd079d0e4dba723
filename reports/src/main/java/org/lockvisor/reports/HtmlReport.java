package org.lockvisor.reports;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.html.HtmlEscapers;
import java.util.List;

/**
 * One self-contained HTML page for a run or a reproduction: headings, paragraphs, tables,
 * preformatted blocks (perf report, lock_stat), inline SVG plots, flame graphs and lock timelines,
 * and links to the files beside it. No external resources: it opens from a file, offline, in any
 * browser. A page with a flame graph or a timeline carries one inline script ({@link
 * ReportScript}) for zoom, search and the timeline's window; every other page has none.
 */
public final class HtmlReport {

  private static final String STYLE = """
      body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2em auto;max-width:1100px;\
      color:#1b1b1b;line-height:1.4;padding:0 1em}
      h1{font-size:1.6em;border-bottom:2px solid #1f77b4;padding-bottom:.2em}
      h2{font-size:1.2em;margin-top:1.6em}
      .verdict{padding:.6em 1em;border-radius:4px;font-weight:600;overflow-wrap:anywhere}
      .ok{background:#e6f4ea;color:#1e7b34}.miss{background:#fdecea;color:#a52714}
      table{border-collapse:collapse;margin:.6em 0;font-variant-numeric:tabular-nums}
      th,td{border:1px solid #ccc;padding:.25em .6em;text-align:right}th{background:#f3f3f3}
      td:first-child,th:first-child{text-align:left}
      pre{background:#f7f7f7;border:1px solid #e1e1e1;padding:.8em;overflow-x:auto;font-size:.85em}
      figure{margin:1em 0}figcaption{font-size:.9em;color:#555}
      svg{max-width:100%;height:auto}
      """;

  private final StringBuilder body = new StringBuilder();
  private final String title;
  private boolean interactive;

  public HtmlReport(String title) {
    checkArgument(title != null && !title.isBlank(), "a report needs a title");
    this.title = title;
    body.append("<h1>").append(esc(title)).append("</h1>\n");
  }

  public HtmlReport heading(String text) {
    body.append("<h2>").append(esc(text)).append("</h2>\n");
    return this;
  }

  public HtmlReport paragraph(String text) {
    body.append("<p>").append(esc(text)).append("</p>\n");
    return this;
  }

  /** A highlighted one-line verdict. */
  public HtmlReport verdict(boolean ok, String text) {
    body.append("<p class=\"verdict ").append(ok ? "ok" : "miss").append("\">").append(esc(text)).append("</p>\n");
    return this;
  }

  public HtmlReport table(List<String> header, List<List<String>> rows) {
    body.append("<table>\n<thead><tr>");
    header.forEach(h -> body.append("<th>").append(esc(h)).append("</th>"));
    body.append("</tr></thead>\n<tbody>\n");
    for (List<String> row : rows) {
      checkArgument(row.size() == header.size(), "row has %s cells, table has %s columns", row.size(), header.size());
      body.append("<tr>");
      row.forEach(c -> body.append("<td>").append(esc(c)).append("</td>"));
      body.append("</tr>\n");
    }
    body.append("</tbody></table>\n");
    return this;
  }

  public HtmlReport preformatted(List<String> lines) {
    body.append("<pre>");
    lines.forEach(l -> body.append(esc(l)).append('\n'));
    body.append("</pre>\n");
    return this;
  }

  /** Inlines an SVG document (its XML prolog and doctype are dropped). */
  public HtmlReport svg(String caption, String svgDocument) {
    int at = svgDocument.indexOf("<svg");
    checkArgument(at >= 0, "not an SVG document: [%s]", caption);
    body.append("<figure>").append(svgDocument.substring(at).strip())
        .append("<figcaption>").append(esc(caption)).append("</figcaption></figure>\n");
    return this;
  }

  public HtmlReport links(List<String> relativePaths) {
    body.append("<ul>\n");
    for (String p : relativePaths) {
      String e = esc(p);
      body.append("<li><a href=\"").append(e).append("\">").append(e).append("</a></li>\n");
    }
    body.append("</ul>\n");
    return this;
  }

  /**
   * An interactive flame graph: the SVG with a search box (regular expression or plain text; the
   * count of matching frames and their share of samples is shown), a zoom reset, a line that shows
   * the frame under the pointer, and {@code caption} under it.
   */
  public HtmlReport flameGraph(String svg, String caption) {
    interactive = true;
    int at = svg.indexOf("id=\"");
    String id = at < 0 ? "" : svg.substring(at + 4, svg.indexOf('"', at + 4));
    body.append("<div class=\"fgbox\"").append(id.isEmpty() ? "" : " id=\"" + esc(id) + "-box\"").append("><div class=\"fgbar\"><input class=\"fgsearch\" type=\"search\" "
        + "placeholder=\"search frames (regex)\" aria-label=\"search frames\"><button class=\"fggo\">Search</button>"
        + "<button class=\"fgclear\">Clear</button><button class=\"fgreset\">Reset zoom</button> "
        + "<span class=\"fgcount\"></span></div>\n")
        .append(svg.substring(svg.indexOf("<svg")).strip())
        .append("\n<div class=\"fgdetail\"></div><div class=\"fgcaption\">").append(esc(caption))
        .append("</div></div>\n");
    return this;
  }

  /** A block of markup built by this package (a lock timeline with its controls); marks the page interactive. */
  HtmlReport interactiveBlock(String html) {
    interactive = true;
    body.append(html);
    return this;
  }

  /** A legend: colour swatches with their meaning. */
  public HtmlReport legend(List<List<String>> colourAndMeaning) {
    body.append("<p class=\"legend\">");
    for (List<String> c : colourAndMeaning) {
      body.append("<span style=\"background:").append(esc(c.get(0))).append("\">").append(esc(c.get(1)))
          .append("</span>");
    }
    body.append("</p>\n");
    return this;
  }

  /** Opens a collapsible section ({@code <details>}); close it with {@link #endSection}. */
  public HtmlReport section(String summary, boolean open) {
    body.append("<details").append(open ? " open" : "").append("><summary>").append(esc(summary))
        .append("</summary>\n");
    return this;
  }

  public HtmlReport endSection() {
    body.append("</details>\n");
    return this;
  }

  /** Characters of the page so far (its body), for size budgets. */
  public int length() {
    return body.length() + STYLE.length() + (interactive ? ReportScript.SCRIPT.length() + ReportScript.STYLE.length() : 0);
  }

  public String render() {
    return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        + "<title>" + esc(title) + "</title>\n<style>\n" + STYLE + (interactive ? ReportScript.STYLE : "")
        + "</style>\n</head>\n<body>\n"
        + body + (interactive ? "<script>\n" + ReportScript.SCRIPT + "</script>\n" : "") + "</body>\n</html>\n";
  }

  private static String esc(String s) {
    return HtmlEscapers.htmlEscaper().escape(s);
  }
}

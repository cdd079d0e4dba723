package org.lockvisor.experiment.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.lockvisor.experiment.ReproductionResult;

/**
 * The {@code report.html} of one reproduction: verdict, its own report (the tables that print the
 * published figures beside the simulated ones), the metrics, every SVG plot it wrote inlined, and
 * links to every file in its output directory and to the page of each of its runs ({@code
 * runs/<label>/report.html}, see {@link RunDirectories}).
 */
public final class ReproductionPage {

  public static final String FILE_NAME = "report.html";

  private ReproductionPage() {}

  /**
   * @param directory the reproduction's output directory (its plots and files), read if it exists
   */
  public static String render(ReproductionResult result, String summary, Path directory) {
    HtmlReport page = new HtmlReport("lockvisor reproduce " + result.name());
    page.paragraph(summary);
    page.verdict(result.reproduced(), (result.reproduced() ? "REPRODUCED: " : "NOT REPRODUCED: ") + result.headline());
    List<Path> files = listFiles(directory);
    for (Path svg : files) {
      if (svg.getFileName().toString().endsWith(".svg")) {
        try {
          page.svg(svg.getFileName().toString(), Files.readString(svg));
        } catch (IOException e) {
          throw new UncheckedIOException("cannot read plot [" + svg + "]", e);
        }
      }
    }
    page.heading("Report");
    page.preformatted(result.report());
    if (!result.metrics().isEmpty()) {
      page.heading("Metrics");
      List<List<String>> rows = new ArrayList<>();
      result.metrics().forEach((k, v) -> rows.add(List.of(k, format(v))));
      page.table(List.of("metric", "value"), rows);
    }
    List<String> links = new ArrayList<>();
    for (Path f : files) {
      String name = f.getFileName().toString();
      if (!name.equals(FILE_NAME)) {
        links.add(name);
      }
    }
    if (!links.isEmpty()) {
      page.heading("Files");
      page.links(links);
    }
    List<String> runs = runPages(directory);
    if (!runs.isEmpty()) {
      page.heading("Runs (each with result.json, perf-report.txt, folded stacks, lock_stat.txt, kvm-stat.txt)");
      page.links(runs);
    }
    return page.render();
  }

  /** {@code runs/<label>/report.html} of every run directory the reproduction wrote, sorted. */
  private static List<String> runPages(Path directory) {
    Path runs = directory == null ? null : directory.resolve(RunDirectories.RUNS);
    if (runs == null || !Files.isDirectory(runs)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(runs)) {
      return s.filter(d -> Files.isRegularFile(d.resolve(FILE_NAME))).map(d -> d.getFileName().toString()).sorted()
          .map(label -> RunDirectories.RUNS + "/" + label + "/" + FILE_NAME).toList();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list [" + runs + "]", e);
    }
  }

  private static String format(double v) {
    return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : String.format(Locale.ROOT, "%.4g", v);
  }

  private static List<Path> listFiles(Path directory) {
    if (directory == null || !Files.isDirectory(directory)) {
      return List.of();
    }
    try (Stream<Path> s = Files.list(directory)) {
      return s.filter(Files::isRegularFile).filter(p -> !p.getFileName().toString().startsWith("."))
          .sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list [" + directory + "]", e);
    }
  }
}

package org.lockvisor.reproductions.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.lockvisor.reports.FlameGraphSections;
import org.lockvisor.reports.HtmlReport;
import org.lockvisor.reports.NumberColumns;
import org.lockvisor.reports.RunOutputs;
import org.lockvisor.reproductions.api.ReproductionResult;

/**
 * The {@code report.html} of one reproduction: verdict, its own report (the tables that print the
 * published figures beside the simulated ones), the metrics, every SVG plot it wrote inlined, and
 * links to every file in its output directory and to the page of each of its runs ({@code
 * runs/<label>/report.html}, see {@link RunDirectories}).
 */
public final class ReproductionPage {

  public static final String FILE_NAME = "report.html";

  /** Size budget of a report page in characters (4 MiB): pictures that do not fit are left out and named. */
  public static final int SIZE_BUDGET = FlameGraphSections.PAGE_BUDGET;

  private ReproductionPage() {}

  /**
   * @param directory the reproduction's output directory (its plots and files), read if it exists
   */
  public static String render(ReproductionResult result, String summary, Path directory) {
    return render(result, summary, directory, List.of());
  }

  /**
   * One internal run of a reproduction, for its pictures: its label, variant, the label of its
   * baseline run (or {@code null}), what it runs (its parameters, {@code key=value, ...}; shown as
   * the legend of its pictures) and its files.
   */
  public record Run(String label, String variant, String baselineLabel, String setup, RunOutputs outputs) {}

  /**
   * The page with the flame graphs of the reproduction's runs ({@code runs}, e.g. {@link
   * RunDirectories#pictures()}):
   * for each run configuration (runs that differ only in a {@code seed<N>} part of their label are
   * one configuration, shown by its first seed), the on-CPU flame graph of each kernel (the VMs,
   * then the host: the vCPU, worker and VMM threads) and, for a run with a baseline run (see {@link
   * #baselineOf}), the differential against it. Within {@link FlameGraphSections#PAGE_BUDGET}; what does not fit is
   * named.
   */
  public static String render(ReproductionResult result, String summary, Path directory, List<Run> runs) {
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
    pictures(page, runs);
    if (!result.metrics().isEmpty()) {
      page.heading("Metrics");
      List<List<String>> rows = new ArrayList<>();
      List<String> keys = new ArrayList<>(result.metrics().keySet());
      List<String> values = NumberColumns.format(keys.stream().map(result.metrics()::get).toList());
      for (int i = 0; i < keys.size(); i++) {
        rows.add(List.of(keys.get(i), values.get(i)));
      }
      page.table(List.of("metric (unit in its name)", "value"), rows);
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
    List<String> runLinks = runPages(directory);
    if (!runLinks.isEmpty()) {
      page.heading("Runs (each with result.json, perf-report.txt, folded stacks, lock_stat.txt, kvm-stat.txt)");
      page.links(runLinks);
    }
    return page.render();
  }

  private static void pictures(HtmlReport page, List<Run> runs) {
    Map<String, Run> byLabel = new TreeMap<>();
    runs.forEach(r -> byLabel.put(r.label(), r));
    List<String> labels = new ArrayList<>(byLabel.keySet());
    labels.sort(SEEDS_LAST);
    Set<String> configurations = new HashSet<>();
    List<Run> shown = new ArrayList<>();
    for (String label : labels) {
      if (configurations.add(withoutSeed(label))) {
        shown.add(byLabel.get(label));
      }
    }
    if (shown.isEmpty()) {
      return;
    }
    page.heading("Flame graphs of the runs");
    page.paragraph("One run per configuration (the first seed); each run's own page (Runs, below) has its spin and"
        + " off-CPU flame graphs and lock timeline.");
    FlameGraphSections graphs = new FlameGraphSections(page, "repro", FlameGraphSections.PAGE_BUDGET);
    boolean first = true;
    for (Run c : shown) {
      Run base = byLabel.get(baselineOf(c));
      page.section("run " + c.label() + " (" + c.variant() + ")"
          + (base == null ? "" : ": against " + base.label()), first || base != null);
      if (!c.setup().isEmpty()) {
        page.paragraph("Runs " + c.variant() + ": " + c.setup() + ".");
      }
      graphs.run(c.label(), c.outputs(), base == null ? null : base.outputs(), base == null ? null : base.label(),
          false);
      page.endSection();
      first = false;
    }
    graphs.finish();
  }

  /**
   * The run {@code run} is compared with: the baseline it names, or else the run whose label is its
   * own with its variant's name replaced by {@code baseline} (e.g. {@code streams8-patched} against
   * {@code streams8-baseline}); {@code ""} when there is none.
   */
  static String baselineOf(Run run) {
    if (run.baselineLabel() != null) {
      return run.baselineLabel();
    }
    String v = run.variant();
    int at = run.label().lastIndexOf(v);
    if (v.equals(BASELINE) || at < 0) {
      return "";
    }
    return run.label().substring(0, at) + BASELINE + run.label().substring(at + v.length());
  }

  private static final String BASELINE = "baseline";

  private static final java.util.regex.Pattern SEED = java.util.regex.Pattern.compile("(^|-)seed(\\d+)(?=-|$)");

  /** The label without its {@code seed<N>} part: runs that differ only there share a configuration. */
  static String withoutSeed(String label) {
    return SEED.matcher(label).replaceAll("$1seed*");
  }

  /** Labels by configuration, then by seed number (seed2 before seed10). */
  private static final java.util.Comparator<String> SEEDS_LAST = java.util.Comparator
      .comparing(ReproductionPage::withoutSeed)
      .thenComparingLong(l -> {
        java.util.regex.Matcher m = SEED.matcher(l);
        return m.find() ? Long.parseLong(m.group(2)) : -1;
      })
      .thenComparing(l -> l);

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
